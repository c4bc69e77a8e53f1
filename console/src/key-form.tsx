import { useEffect, useRef, useState } from "preact/hooks";
import { type Problem, Session } from "./api.ts";
import { ProblemNotice } from "./problem.tsx";

type Props = {
  /** Why the page came back here: the API's refusal of the key in use. */
  refusal: Problem | null;
  onAccepted(key: string): void;
};

/** Where the API key is pasted; it is tried with GET /usage (free of charge) before it is kept. */
export function KeyForm({ refusal, onAccepted }: Props) {
  const input = useRef<HTMLInputElement>(null);
  const [problem, setProblem] = useState<Problem | null>(refusal);
  const [busy, setBusy] = useState(false);
  useEffect(() => input.current?.focus(), []);

  const submit = async (event: Event) => {
    event.preventDefault();
    const key = input.current?.value.trim() ?? "";
    if (!key) {
      setProblem({ status: null, code: "missing_key", message: "Paste your API key first.", retryAt: null });
      return;
    }
    setBusy(true);
    const outcome = await new Session(key, () => {}).ask((api) => api.GET("/usage"));
    setBusy(false);
    if (outcome.ok) onAccepted(key);
    else {
      setProblem(outcome.problem);
      input.current?.focus();
    }
  };

  return (
    <main class="panel key-panel">
      <h1>VAT and IBAN validation</h1>
      <form method="post" onSubmit={submit} aria-describedby="key-help">
        <label for="api-key">API key</label>
        <div class="row">
          <input
            ref={input}
            id="api-key"
            name="api-key"
            type="password"
            autocomplete="off"
            spellcheck={false}
            placeholder="vsk_…"
            aria-invalid={problem ? "true" : undefined}
            aria-describedby={problem ? "key-problem" : undefined}
          />
          <button type="submit" disabled={busy}>
            {busy ? "Checking…" : "Use this key"}
          </button>
        </div>
        <p id="key-help" class="muted">
          The key stays in this browser tab only (it is forgotten when the tab closes) and is sent to this
          service alone, in the <code>X-API-Key</code> header.
        </p>
      </form>
      {problem && (
        <div id="key-problem">
          <ProblemNotice problem={problem} />
        </div>
      )}
    </main>
  );
}
