import { csvBody, type Schemas } from "@vat-iban/client";
import { useEffect, useRef, useState } from "preact/hooks";
import type { Problem, Session } from "./api.ts";
import type { BatchItem } from "./batch-items.ts";
import { BatchResults } from "./batch-results.tsx";
import { saveFile } from "./download.ts";
import { pollDelayMs, pollWhileVisible } from "./poll.ts";
import { ProblemNotice } from "./problem.tsx";
import sampleUrl from "./sample.csv";
import { WatchValidNumbers } from "./watch.tsx";

type Batch = Schemas["Batch"];

const PAGE_LIMIT = "1000";
const STATUS_LABELS: Record<Batch["status"], string> = {
  queued: "Queued",
  running: "Running",
  completed: "Completed",
  cancelled: "Cancelled",
};
const isOver = (batch: Batch) => batch.status === "completed" || batch.status === "cancelled";

/** Check a list: a CSV file through POST /batches, its progress, its results. */
export function BatchPanel({ session }: { session: Session }) {
  const [file, setFile] = useState<File | null>(null);
  const [batch, setBatch] = useState<Batch | null>(null);
  const [rate, setRate] = useState(60);
  const [items, setItems] = useState<BatchItem[] | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);

  const start = async (event: Event) => {
    event.preventDefault();
    if (!file) {
      setProblem({ status: null, code: "no_file", message: "Choose a CSV file first.", retryAt: null });
      return;
    }
    setBusy(true);
    const text = await file.text();
    const outcome = await session.ask((api) => api.POST("/batches", csvBody(text)));
    setBusy(false);
    if (!outcome.ok) return setProblem(outcome.problem);
    setProblem(null);
    setRate(Number(outcome.response.headers.get("x-ratelimit-limit")) || 60);
    setBatch(outcome.data);
  };

  const id = batch?.id;
  const over = batch ? isOver(batch) : false;
  useEffect(() => {
    if (!id || over) return;
    return pollWhileVisible(async () => {
      const outcome = await session.ask((api) => api.GET("/batches/{id}", { params: { path: { id } } }));
      if (outcome.ok) {
        setProblem(null);
        setBatch(outcome.data);
        return isOver(outcome.data) ? null : pollDelayMs(rate);
      }
      setProblem(outcome.problem);
      const wait = outcome.problem.retryAt ? outcome.problem.retryAt.getTime() - Date.now() : 0;
      return Math.max(wait, 2 * pollDelayMs(rate));
    });
  }, [id, over, rate, session]);

  useEffect(() => {
    if (!id || !over) return;
    void (async () => {
      const loaded: BatchItem[] = [];
      let cursor: string | undefined;
      do {
        const outcome = await session.ask((api) =>
          api.GET("/batches/{id}/items", { params: { path: { id }, query: { limit: PAGE_LIMIT, cursor } } }),
        );
        if (!outcome.ok) return setProblem(outcome.problem);
        loaded.push(...outcome.data.items);
        cursor = outcome.data.next_cursor ?? undefined;
      } while (cursor);
      setItems(loaded);
    })();
  }, [id, over, session]);

  const cancel = async () => {
    if (!id) return;
    const outcome = await session.ask((api) => api.DELETE("/batches/{id}", { params: { path: { id } } }));
    if (outcome.ok) setBatch(outcome.data);
    else setProblem(outcome.problem);
  };

  const download = async () => {
    if (!id) return;
    const parts: string[] = [];
    let cursor: string | undefined;
    do {
      const outcome = await session.ask((api) =>
        api.GET("/batches/{id}/items", {
          params: { path: { id }, query: { limit: PAGE_LIMIT, cursor } },
          headers: { accept: "text/csv" },
          parseAs: "text",
        }),
      );
      if (!outcome.ok) return setProblem(outcome.problem);
      // Every page starts with the header row; the file has it once.
      parts.push(parts.length === 0 ? outcome.data : outcome.data.slice(outcome.data.indexOf("\n") + 1));
      cursor = outcome.response.headers.get("x-next-cursor") ?? undefined;
    } while (cursor);
    saveFile(new Blob(parts, { type: "text/csv" }), `${id}.csv`);
  };

  const reset = () => {
    setBatch(null);
    setItems(null);
    setFile(null);
    setProblem(null);
  };

  return (
    <>
      <h2>Check a list</h2>
      {!batch ? (
        <FileForm file={file} onFile={setFile} onSubmit={start} busy={busy} />
      ) : (
        <Progress batch={batch} onCancel={cancel} />
      )}
      {problem && <ProblemNotice problem={problem} />}
      {batch && items && (
        <>
          <div class="row">
            <button type="button" onClick={download}>
              Download the results (CSV)
            </button>
            <button type="button" class="secondary" onClick={reset}>
              Check another list
            </button>
          </div>
          <WatchValidNumbers session={session} numbers={validVatNumbers(items)} />
          <BatchResults items={items} />
        </>
      )}
    </>
  );
}

/** The list's VAT numbers found registered, once each, with the reference of their first row. */
function validVatNumbers(items: BatchItem[]): Schemas["MonitorItem"][] {
  const seen = new Map<string, Schemas["MonitorItem"]>();
  for (const { vat, reference } of items) {
    if (vat?.valid !== true || !vat.vat_number || seen.has(vat.vat_number)) continue;
    seen.set(vat.vat_number, { vat: vat.vat_number, ...(reference !== null && { reference }) });
  }
  return [...seen.values()];
}

type FileFormProps = {
  file: File | null;
  busy: boolean;
  onFile(file: File | null): void;
  onSubmit(event: Event): void;
};

function FileForm({ file, busy, onFile, onSubmit }: FileFormProps) {
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const drop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    const dropped = event.dataTransfer?.files[0];
    if (dropped) onFile(dropped);
  };
  return (
    <form method="post" onSubmit={onSubmit}>
      <p>
        A CSV file with a header row naming any of <code>vat</code>, <code>iban</code> and{" "}
        <code>reference</code>, then one customer a row.{" "}
        <a href={sampleUrl} download="sample.csv">
          Download a sample file
        </a>
        .
      </p>
      <label
        for="csv-file"
        class={dragging ? "dropzone dragging" : "dropzone"}
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={drop}
      >
        <span>Drop the CSV file here, or choose it:</span>
        <input
          ref={input}
          id="csv-file"
          name="csv-file"
          type="file"
          accept=".csv,text/csv"
          onChange={() => onFile(input.current?.files?.[0] ?? null)}
        />
        {file && (
          <span class="muted">
            {file.name}, {(file.size / 1024).toLocaleString(undefined, { maximumFractionDigits: 1 })} KiB
          </span>
        )}
      </label>
      <button type="submit" disabled={busy}>
        {busy ? "Sending…" : "Check this list"}
      </button>
    </form>
  );
}

function Progress({ batch, onCancel }: { batch: Batch; onCancel(): void }) {
  const { counts } = batch;
  const finished = counts.done + counts.failed;
  return (
    <div class="progress">
      <p>
        List <code>{batch.id}</code>:{" "}
        <strong class={`status status-${batch.status}`}>{STATUS_LABELS[batch.status]}</strong>
      </p>
      <label for="batch-progress">
        {finished.toLocaleString()} of {counts.total.toLocaleString()} checked
      </label>
      <progress id="batch-progress" max={counts.total} value={finished} aria-describedby="batch-counts" />
      <p id="batch-counts" aria-live="polite">
        {counts.valid.toLocaleString()} valid, {counts.invalid.toLocaleString()} not valid,{" "}
        {counts.failed.toLocaleString()} could not be checked; {counts.billed.toLocaleString()} billed.
      </p>
      {!isOver(batch) && (
        <button type="button" class="danger" onClick={onCancel}>
          Cancel the rest
        </button>
      )}
    </div>
  );
}
