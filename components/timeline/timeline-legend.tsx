/** What the colours and shapes of the swimlane mean: every consumer by name, then the special kinds. */
export function TimelineLegend({
  consumers,
  colors,
  isKeyShared,
  noHolderWords = "no active consumer",
}: {
  consumers: string[];
  colors: Record<string, string>;
  isKeyShared: boolean;
  noHolderWords?: string;
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
    </ul>
  );
}
