/**
 * A filter's select: "All" (null) or one of the choices. A chosen value that is not among the
 * choices (from a pasted link, or a range that holds none of it) stays listed, and still filters.
 */
export function ChoiceSelect({
  label,
  value,
  choices,
  onChange,
  className,
  describe = (choice) => choice,
}: {
  label: string;
  value: string | null;
  choices: readonly string[];
  onChange: (value: string | null) => void;
  /** The page's field style (filter-field on the board, vio-field on the violation pages). */
  className: string;
  /** How a choice reads in the list. */
  describe?: (choice: string) => string;
}) {
  const options = value !== null && !choices.includes(value) ? [value, ...choices] : choices;
  return (
    <label className={className}>
      <span>{label}</span>
      <select value={value ?? ""} onChange={(event) => onChange(event.target.value === "" ? null : event.target.value)}>
        <option value="">All</option>
        {options.map((choice) => (
          <option key={choice} value={choice}>
            {describe(choice)}
          </option>
        ))}
      </select>
    </label>
  );
}
