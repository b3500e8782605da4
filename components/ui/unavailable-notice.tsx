/** Says that data could not be read, and why: never shown as "nothing there". */
export function UnavailableNotice({ what, reason }: { what: string; reason: string }) {
  return (
    <section className="panel empty-state unavailable" role="alert">
      <h2>{what} unavailable</h2>
      <p>{reason}</p>
      <p>What Baton showed last is not shown here because it may no longer be true.</p>
    </section>
  );
}
