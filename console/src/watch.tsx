import type { Schemas } from "@vat-iban/client";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import type { Problem, Session } from "./api.ts";
import { dateTime } from "./fields.tsx";
import { ProblemNotice } from "./problem.tsx";

type Monitor = Schemas["Monitor"];
type MonitorEventRecord = Schemas["MonitorEventRecord"];
type VatResult = Schemas["VatResult"];
type StatusFilter = "all" | Monitor["status"];

const PAGE_LIMIT = "50";

const EVENT_LABELS: Record<MonitorEventRecord["type"], string> = {
  "vat.registration_changed": "Registration changed",
  "vat.details_changed": "Registered name or address changed",
  "vat.match_changed": "Match with your details changed",
};

/** An answer in a few words: what a person scanning a watch list needs. */
function answerOf(result: VatResult | null): string {
  if (result === null) return "not checked yet";
  if (result.valid === true) return result.name ? `valid: ${result.name}` : "valid";
  if (result.valid === false) return "not valid";
  return result.error?.message ?? "could not be checked";
}

/** What an event says changed, from the two answers it carries. */
function changeOf(event: MonitorEventRecord): string {
  const { previous, current } = event.data;
  if (event.type === "vat.registration_changed")
    return current.valid ? "now registered for VAT" : "no longer registered for VAT";
  if (event.type === "vat.match_changed")
    return `${previous.match?.overall ?? "—"} → ${current.match?.overall ?? "—"}`;
  const before = [previous.name, previous.address].filter(Boolean).join(", ");
  const after = [current.name, current.address].filter(Boolean).join(", ");
  return `${before || "—"} → ${after || "—"}`;
}

/** Watch: the key's monitors, their events, and a form to watch one more number. */
export function WatchPanel({ session, active }: { session: Session; active: boolean }) {
  const [filter, setFilter] = useState<StatusFilter>("all");
  const [monitors, setMonitors] = useState<Monitor[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  // Asked again at every click, so "Events" always shows what is there now.
  const [opened, setOpened] = useState<{ monitor: Monitor; asked: number } | null>(null);

  const load = useCallback(
    async (from: string | null) => {
      const outcome = await session.ask((api) =>
        api.GET("/monitors", {
          params: {
            query: {
              limit: PAGE_LIMIT,
              ...(from && { cursor: from }),
              ...(filter !== "all" && { status: filter }),
            },
          },
        }),
      );
      if (!outcome.ok) return setProblem(outcome.problem);
      setProblem(null);
      setMonitors((shown) => [...(from && shown ? shown : []), ...outcome.data.monitors]);
      setCursor(outcome.data.next_cursor);
    },
    [session, filter],
  );

  useEffect(() => {
    if (active) void load(null);
  }, [active, load]);

  const replace = useCallback(
    (changed: Monitor) =>
      setMonitors(
        (shown) => shown?.map((monitor) => (monitor.id === changed.id ? changed : monitor)) ?? null,
      ),
    [],
  );

  const act = async (monitor: Monitor, action: "check" | "pause" | "resume" | "delete") => {
    const path = { params: { path: { id: monitor.id } } };
    if (action === "check") {
      const outcome = await session.ask((api) => api.POST("/monitors/{id}/check", path));
      if (!outcome.ok) return setProblem(outcome.problem);
      return replace(outcome.data);
    }
    if (action === "delete") {
      const outcome = await session.ask((api) => api.DELETE("/monitors/{id}", path));
      if (!outcome.ok) return setProblem(outcome.problem);
      if (opened?.monitor.id === monitor.id) setOpened(null);
      return setMonitors((shown) => shown?.filter((other) => other.id !== monitor.id) ?? null);
    }
    const status = action === "pause" ? "paused" : "active";
    const outcome = await session.ask((api) => api.PATCH("/monitors/{id}", { ...path, body: { status } }));
    if (!outcome.ok) return setProblem(outcome.problem);
    replace(outcome.data);
  };

  return (
    <>
      <h2>Watch numbers for changes</h2>
      <p class="muted">
        A watched VAT number is checked again every few days; when its registration lapses, or its registered
        name or address changes, it is listed here (and sent to its webhook). A check the authority answers
        afresh is billed like any other.
      </p>
      <WatchForm session={session} onWatched={() => void load(null)} />
      {problem && <ProblemNotice problem={problem} />}
      <div class="row">
        <label for="monitor-filter">Which numbers</label>
        <select
          id="monitor-filter"
          value={filter}
          onChange={(event) => setFilter((event.currentTarget as HTMLSelectElement).value as StatusFilter)}
        >
          <option value="all">All</option>
          <option value="active">Watched</option>
          <option value="paused">Paused</option>
        </select>
      </div>
      {monitors !== null && monitors.length === 0 && (
        <p role="status">No numbers are watched with this key yet.</p>
      )}
      {monitors !== null && monitors.length > 0 && (
        <div class="table-scroll">
          <table>
            <caption>Watched numbers ({monitors.length.toLocaleString()} shown)</caption>
            <thead>
              <tr>
                <th scope="col">Number</th>
                <th scope="col">Reference</th>
                <th scope="col">Last answer</th>
                <th scope="col">Last checked</th>
                <th scope="col">Next check</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {monitors.map((monitor) => (
                <tr key={monitor.id}>
                  <td class="number">{monitor.vat_number}</td>
                  <td class="reference">{monitor.reference ?? ""}</td>
                  <td>{answerOf(monitor.last_result)}</td>
                  <td>{monitor.last_checked_at ? dateTime(monitor.last_checked_at) : "—"}</td>
                  <td>
                    {monitor.status === "paused"
                      ? "paused"
                      : monitor.next_check_at
                        ? dateTime(monitor.next_check_at)
                        : "—"}
                  </td>
                  <td class="actions">
                    <button
                      type="button"
                      class="secondary"
                      onClick={() => setOpened({ monitor, asked: Date.now() })}
                    >
                      Events<span class="visually-hidden"> of {monitor.vat_number}</span>
                    </button>
                    <button type="button" class="secondary" onClick={() => act(monitor, "check")}>
                      Check now<span class="visually-hidden"> {monitor.vat_number}</span>
                    </button>
                    <button
                      type="button"
                      class="secondary"
                      onClick={() => act(monitor, monitor.status === "active" ? "pause" : "resume")}
                    >
                      {monitor.status === "active" ? "Pause" : "Resume"}
                      <span class="visually-hidden"> {monitor.vat_number}</span>
                    </button>
                    <button type="button" class="danger" onClick={() => act(monitor, "delete")}>
                      Stop watching<span class="visually-hidden"> {monitor.vat_number}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {cursor && (
        <button type="button" class="secondary" onClick={() => void load(cursor)}>
          Show more
        </button>
      )}
      {opened && (
        <EventList key={opened.asked} session={session} monitor={opened.monitor} onMonitor={replace} />
      )}
    </>
  );
}

function WatchForm({ session, onWatched }: { session: Session; onWatched(): void }) {
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const vat = useRef<HTMLInputElement>(null);
  const reference = useRef<HTMLInputElement>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    const number = vat.current?.value.trim() ?? "";
    if (!number) {
      setProblem({
        status: null,
        code: "empty",
        message: "Type or paste a VAT number to watch.",
        retryAt: null,
      });
      return vat.current?.focus();
    }
    const ref = reference.current?.value.trim() ?? "";
    setBusy(true);
    const outcome = await session.ask((api) =>
      api.POST("/monitors", { body: { vat: number, ...(ref && { reference: ref }) } }),
    );
    setBusy(false);
    if (!outcome.ok) return setProblem(outcome.problem);
    setProblem(null);
    if (vat.current) vat.current.value = "";
    if (reference.current) reference.current.value = "";
    onWatched();
  };
  return (
    <form method="post" onSubmit={submit} class="watch-form">
      <label for="watch-vat">VAT number to watch</label>
      <div class="row">
        <input ref={vat} id="watch-vat" autocomplete="off" spellcheck={false} placeholder="NL854265259B01" />
        <label for="watch-reference" class="visually-hidden">
          Your reference (optional)
        </label>
        <input
          ref={reference}
          id="watch-reference"
          autocomplete="off"
          placeholder="your reference (optional)"
        />
        <button type="submit" disabled={busy}>
          {busy ? "Adding…" : "Watch"}
        </button>
      </div>
      {problem && <ProblemNotice problem={problem} />}
    </form>
  );
}

/** A monitor's events, and its row brought up to date with them (its last answer may be newer). */
function EventList({
  session,
  monitor,
  onMonitor,
}: {
  session: Session;
  monitor: Monitor;
  onMonitor(monitor: Monitor): void;
}) {
  const [events, setEvents] = useState<MonitorEventRecord[] | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  useEffect(() => {
    void (async () => {
      const current = await session.ask((api) =>
        api.GET("/monitors/{id}", { params: { path: { id: monitor.id } } }),
      );
      if (!current.ok) return setProblem(current.problem);
      onMonitor(current.data);
      const loaded: MonitorEventRecord[] = [];
      let cursor: string | undefined;
      do {
        const outcome = await session.ask((api) =>
          api.GET("/monitors/{id}/events", {
            params: { path: { id: monitor.id }, query: { limit: "1000", cursor } },
          }),
        );
        if (!outcome.ok) return setProblem(outcome.problem);
        loaded.push(...outcome.data.events);
        cursor = outcome.data.next_cursor ?? undefined;
      } while (cursor);
      setEvents(loaded);
    })();
  }, [session, monitor.id, onMonitor]);
  return (
    <section aria-label={`Events of ${monitor.vat_number}`} class="events">
      <h3>Events of {monitor.vat_number}</h3>
      {problem && <ProblemNotice problem={problem} />}
      {events !== null && events.length === 0 && <p>Nothing has changed since it is watched.</p>}
      {events !== null && events.length > 0 && (
        <ol>
          {events.map((event) => (
            <li key={event.id}>
              <time dateTime={event.created_at}>{dateTime(event.created_at)}</time>:{" "}
              {EVENT_LABELS[event.type]} ({changeOf(event)})
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** Watches the valid VAT numbers of a list, with their references: one call, never more than once a number. */
export function WatchValidNumbers({
  session,
  numbers,
}: {
  session: Session;
  numbers: Schemas["MonitorItem"][];
}) {
  const [done, setDone] = useState<string | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  if (numbers.length === 0) return null;
  const watch = async () => {
    setBusy(true);
    const outcome = await session.ask((api) => api.POST("/monitors", { body: { items: numbers } }));
    setBusy(false);
    if (!outcome.ok) return setProblem(outcome.problem);
    setProblem(null);
    const created = "created" in outcome.data ? outcome.data.created : 1;
    setDone(
      `${numbers.length.toLocaleString()} numbers are watched now (${created.toLocaleString()} new); see the Watch tab.`,
    );
  };
  return (
    <div class="watch-valid">
      {done ? (
        <p role="status">{done}</p>
      ) : (
        <button type="button" class="secondary" disabled={busy} onClick={watch}>
          Watch the {numbers.length.toLocaleString()} valid VAT numbers for changes
        </button>
      )}
      {problem && <ProblemNotice problem={problem} />}
    </div>
  );
}
