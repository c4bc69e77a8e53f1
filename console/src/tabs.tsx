import type { ComponentChildren } from "preact";
import { useRef } from "preact/hooks";

export type Tab = { id: string; label: string; panel: ComponentChildren };

type Props = { label: string; tabs: Tab[]; active: string; onSelect(id: string): void };

/**
 * Tabs as the WAI-ARIA pattern has them: one tab stop, the arrow keys (and Home, End) move
 * between tabs, and every panel stays mounted while hidden, so work under way in one (a
 * running list) goes on while another is shown.
 */
export function Tabs({ label, tabs, active, onSelect }: Props) {
  const list = useRef<HTMLDivElement>(null);
  const move = (event: KeyboardEvent) => {
    const index = tabs.findIndex((tab) => tab.id === active);
    const next = {
      ArrowRight: index + 1,
      ArrowLeft: index - 1,
      Home: 0,
      End: tabs.length - 1,
    }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const target = tabs[(next + tabs.length) % tabs.length];
    if (!target) return;
    onSelect(target.id);
    list.current?.querySelector<HTMLButtonElement>(`#tab-${target.id}`)?.focus();
  };
  return (
    <>
      <div class="tabs" role="tablist" aria-label={label} ref={list} onKeyDown={move}>
        {tabs.map((tab) => (
          <button
            key={tab.id}
            id={`tab-${tab.id}`}
            type="button"
            role="tab"
            aria-selected={tab.id === active}
            aria-controls={`panel-${tab.id}`}
            tabIndex={tab.id === active ? 0 : -1}
            onClick={() => onSelect(tab.id)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      {tabs.map((tab) => (
        <section
          key={tab.id}
          id={`panel-${tab.id}`}
          class="panel"
          role="tabpanel"
          aria-labelledby={`tab-${tab.id}`}
          hidden={tab.id !== active}
        >
          {tab.panel}
        </section>
      ))}
    </>
  );
}
