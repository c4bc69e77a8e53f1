import { useEffect, useState } from "preact/hooks";

type Offer = "checking" | "absent" | "present" | "unknown";

/** Whether the service's API document has GET /monitors: the console offers what the API does. */
async function monitorsOffered(): Promise<Offer> {
  try {
    const response = await fetch("/swagger/json");
    if (!response.ok) return "unknown";
    const document = (await response.json()) as { paths?: Record<string, Record<string, unknown>> };
    return document.paths?.["/monitors"]?.get ? "present" : "absent";
  } catch {
    return "unknown";
  }
}

/** Watch: the key's monitors, where the API has them. */
export function WatchPanel({ active }: { active: boolean }) {
  const [offer, setOffer] = useState<Offer>("checking");
  useEffect(() => {
    if (active && offer === "checking") void monitorsOffered().then(setOffer);
  }, [active, offer]);
  return (
    <>
      <h2>Watch numbers for changes</h2>
      <p role="status">
        {offer === "checking" && "Looking up what this service offers…"}
        {offer === "absent" &&
          "This service does not watch numbers yet: its API has no monitors (there is no GET /monitors in its API document)."}
        {offer === "present" &&
          "This service's API has monitors (GET /monitors), but this version of the console cannot show them yet: use the API."}
        {offer === "unknown" &&
          "The API document (/swagger/json) could not be read, so it is not known whether monitors exist."}
      </p>
    </>
  );
}
