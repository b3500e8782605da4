/** The alert strip's bars in a legend (AlertStrip draws them): one item per colour and state it uses. */
export function AlertLegendItems() {
  return (
    <>
      <li>
        <span className="swatch swatch-alert" data-severity="critical" aria-hidden="true" />
        alert (critical)
      </li>
      <li>
        <span className="swatch swatch-alert" data-severity="warning" aria-hidden="true" />
        alert (warning)
      </li>
      <li>
        <span className="swatch swatch-alert" data-state="pending" aria-hidden="true" />
        alert pending
      </li>
      <li>
        <span className="swatch swatch-alert" data-state="resolved" aria-hidden="true" />
        alert resolved
      </li>
    </>
  );
}
