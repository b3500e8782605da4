import { formatCount } from "@/lib/board/format";

type Props = {
  pageNumber: number;
  pageSize: number;
  shown: number;
  total: number;
  nextCursor: string | null;
  isLoading: boolean;
  onNewest: () => void;
  onNewer: () => void;
  onOlder: (cursor: string) => void;
};

/** Newer and older pages of a change list, and where this page is in the range. */
export function ChangePager({ pageNumber, pageSize, shown, total, nextCursor, isLoading, onNewest, onNewer, onOlder }: Props) {
  const first = (pageNumber - 1) * pageSize + (shown > 0 ? 1 : 0);
  const last = (pageNumber - 1) * pageSize + shown;
  return (
    <nav className="change-pager" aria-label="Change pages">
      <button type="button" disabled={pageNumber === 1 || isLoading} onClick={onNewest}>
        Newest
      </button>
      <button type="button" disabled={pageNumber === 1 || isLoading} onClick={onNewer}>
        Newer
      </button>
      <span className="muted" aria-live="polite">
        Page {pageNumber}: changes {formatCount(first)}–{formatCount(last)} of {formatCount(total)}
      </span>
      <button type="button" disabled={nextCursor === null || isLoading} onClick={() => nextCursor !== null && onOlder(nextCursor)}>
        Older
      </button>
    </nav>
  );
}
