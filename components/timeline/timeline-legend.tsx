import { AlertLegendItems } from "@/components/alerts/alert-legend-items";

/**
 * What every colour and shape under the timeline means: every consumer by name, the special
 * kinds, each marker colour (MarkerLayer's) and the alert strip's bars (AlertStrip's).
 */
export function TimelineLegend({
  consumers,
  colors,
  isKeyShared,
  noHolderWords = "no active consumer",
  isLock = false,
}: {
  consumers: string[];
  colors: Record<string, string>;
  isKeyShared: boolean;
  noHolderWords?: string;
  /** A lock's timeline: its red marker is an expiry while held, and it has no consumer-set changes. */
  isLock?: boolean;
}) {
  return (
    <ul className="legend" aria-label="Legend">
      {consumers.map((name) => (
        <li key={name}>
          <span className="swatch" style={{ background: colors[name] }} aria-hidden="true" />
          {name}
        </li>
      ))}
      {isKeyShared ? (
        <li>
          <span className="swatch" style={{ background: "#64748b" }} aria-hidden="true" />
          shared (Key_Shared)
        </li>
      ) : (
        <li>
          <span className="swatch swatch-none" aria-hidden="true" />
          {noHolderWords}
        </li>
      )}
      <li>
        <span className="swatch swatch-unobserved" aria-hidden="true" />
        not observed
      </li>
      <li>
        <span className="swatch swatch-band" aria-hidden="true" />
        deployment
      </li>
      <li>
        <span className="swatch swatch-marker" aria-hidden="true" />
        change
      </li>
      <li>
        <span className="swatch swatch-marker swatch-marker-lost" aria-hidden="true" />
        {isLock ? "expired while held, or lost" : "leader lost"}
      </li>
      <li>
        <span className="swatch swatch-marker swatch-marker-flap" aria-hidden="true" />
        hidden flap
      </li>
      {isLock ? null : (
        <li>
          <span className="swatch swatch-marker swatch-marker-consumers" aria-hidden="true" />
          consumers or ranges changed
        </li>
      )}
      <AlertLegendItems />
    </ul>
  );
}
