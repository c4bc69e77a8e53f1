import { useMemo, useState } from "preact/hooks";
import { type Problem, Session, storedKey } from "./api.ts";
import { BatchPanel } from "./batch.tsx";
import { CheckPanel } from "./check.tsx";
import { KeyForm } from "./key-form.tsx";
import { Tabs } from "./tabs.tsx";
import { UsagePanel } from "./usage.tsx";
import { WatchPanel } from "./watch.tsx";

/** The key's last four characters: enough to tell keys apart, too few to use. */
const keyHint = (key: string) => `…${key.slice(-4)}`;

export function App() {
  const [key, setKey] = useState<string | null>(() => storedKey.read());
  const [refusal, setRefusal] = useState<Problem | null>(null);
  const session = useMemo(
    () =>
      key
        ? new Session(key, (problem) => {
            storedKey.clear();
            setRefusal(problem);
            setKey(null);
          })
        : null,
    [key],
  );
  if (!session) {
    return (
      <KeyForm
        refusal={refusal}
        onAccepted={(accepted) => {
          storedKey.write(accepted);
          setRefusal(null);
          setKey(accepted);
        }}
      />
    );
  }
  return (
    <Workspace
      session={session}
      onForget={() => {
        storedKey.clear();
        setKey(null);
      }}
    />
  );
}

function Workspace({ session, onForget }: { session: Session; onForget(): void }) {
  const [active, setActive] = useState("check");
  return (
    <>
      <header class="top">
        <h1>VAT and IBAN validation</h1>
        <p class="key-hint">
          Key <code>{keyHint(session.key)}</code>{" "}
          <button type="button" class="link" onClick={onForget}>
            Use another key
          </button>
        </p>
      </header>
      <main>
        <Tabs
          label="Console"
          active={active}
          onSelect={setActive}
          tabs={[
            { id: "check", label: "Check one", panel: <CheckPanel session={session} /> },
            { id: "batch", label: "Check a list", panel: <BatchPanel session={session} /> },
            {
              id: "watch",
              label: "Watch",
              panel: <WatchPanel session={session} active={active === "watch"} />,
            },
            {
              id: "usage",
              label: "Usage",
              panel: <UsagePanel session={session} active={active === "usage"} />,
            },
          ]}
        />
      </main>
    </>
  );
}
