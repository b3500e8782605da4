// Epoch milliseconds to the ISO text Date.prototype.toISOString() writes, without a Date: the
// leaders board formats tens of thousands of times per answer. Pure and client-safe.

const pad2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/** Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm). */
function civilFromDays(days: number): [year: number, month: number, day: number] {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1_460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (month <= 2 ? 1 : 0), month, day];
}

/** "2026-11-22T14:02:07.123Z" for years 1000-9999 (what a database of leader changes holds). */
export function formatIsoMs(ms: number): string {
  const days = Math.floor(ms / 86_400_000);
  const inDay = ms - days * 86_400_000;
  const [year, month, day] = civilFromDays(days);
  if (year < 1000 || year > 9999) return new Date(ms).toISOString();
  const hours = Math.floor(inDay / 3_600_000);
  const minutes = Math.floor((inDay % 3_600_000) / 60_000);
  const seconds = Math.floor((inDay % 60_000) / 1_000);
  return `${year}-${pad2(month)}-${pad2(day)}T${pad2(hours)}:${pad2(minutes)}:${pad2(seconds)}.${pad3(inDay % 1_000)}Z`;
}

export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : formatIsoMs(ms);
}
