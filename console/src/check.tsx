import type { Schemas } from "@vat-iban/client";
import { useRef, useState } from "preact/hooks";
import type { Problem, Session } from "./api.ts";
import { MatchInputs, matchRequestOf } from "./match.tsx";
import { ProblemNotice } from "./problem.tsx";
import { IbanResultView, VatResultView } from "./results.tsx";

type Kind = "vat" | "iban";
const PLACEHOLDERS: Record<Kind, string> = { vat: "NL854265259B01", iban: "DE89 3704 0044 0532 0130 00" };

/** Check one: a VAT number or an IBAN through POST /validate, the answer as a person reads it. */
export function CheckPanel({ session }: { session: Session }) {
  const [kind, setKind] = useState<Kind>("vat");
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<Schemas["ValidateResponse"] | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const input = useRef<HTMLInputElement>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    const value = input.current?.value.trim() ?? "";
    if (!value) {
      setProblem({ status: null, code: "empty", message: "Type or paste a number to check.", retryAt: null });
      input.current?.focus();
      return;
    }
    const match = kind === "vat" ? matchRequestOf(event.currentTarget as HTMLFormElement) : undefined;
    setBusy(true);
    const outcome = await session.ask((api) =>
      api.POST("/validate", {
        body: kind === "vat" ? { vat: value, ...(match && { match }) } : { iban: value },
      }),
    );
    setBusy(false);
    setAnswer(outcome.ok ? outcome.data : null);
    setProblem(outcome.ok ? null : outcome.problem);
  };

  return (
    <>
      <h2>Check one number</h2>
      <form method="post" onSubmit={submit}>
        <fieldset class="choice">
          <legend>What is it?</legend>
          {(["vat", "iban"] as const).map((option) => (
            <label key={option}>
              <input
                type="radio"
                name="kind"
                value={option}
                checked={kind === option}
                onChange={() => setKind(option)}
              />{" "}
              {option === "vat" ? "VAT number" : "IBAN"}
            </label>
          ))}
        </fieldset>
        <label for="number">
          {kind === "vat" ? "VAT number, with its country prefix" : "IBAN, with or without spaces"}
        </label>
        <div class="row">
          <input
            ref={input}
            id="number"
            name="number"
            autocomplete="off"
            spellcheck={false}
            placeholder={PLACEHOLDERS[kind]}
          />
          <button type="submit" disabled={busy}>
            {busy ? "Checking…" : "Check"}
          </button>
        </div>
        {kind === "vat" && <MatchInputs />}
      </form>
      <div aria-live="polite" class="answer">
        {problem && <ProblemNotice problem={problem} />}
        {answer && <Answer answer={answer} />}
      </div>
    </>
  );
}

function Answer({ answer }: { answer: Schemas["ValidateResponse"] }) {
  const { usage } = answer;
  return (
    <>
      {answer.vat && <VatResultView result={answer.vat} />}
      {answer.iban && <IbanResultView result={answer.iban} />}
      <p class="billing">
        {answer.billable ? "Billed: 1 validation." : "Not billed."}{" "}
        {usage.limit === null
          ? `${usage.used.toLocaleString()} used this month.`
          : `${usage.used.toLocaleString()} of ${usage.limit.toLocaleString()} used this month.`}
      </p>
      <p class="muted">
        Request id <code>{answer.request_id}</code>
      </p>
    </>
  );
}
