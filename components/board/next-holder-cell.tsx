import Link from "next/link";

import { describeNextHolder } from "@/lib/board/next-holder-words";
import type { NextHolder } from "@/lib/poller/next-holder";

/** Who takes over if the holder leaves: a name, "nobody", or why it cannot be computed (the reason on hover and for screen readers). */
export function NextHolderCell({ next, consumerHref, tabIndex }: { next: NextHolder; consumerHref?: (name: string) => string; tabIndex?: number }) {
  if (next.reason === null && next.holder !== null) {
    return consumerHref ? (
      <Link prefetch={false} href={consumerHref(next.holder)} tabIndex={tabIndex} className="consumer-link" data-testid="next-holder">
        {next.holder}
      </Link>
    ) : (
      <span data-testid="next-holder">{next.holder}</span>
    );
  }
  const words = describeNextHolder(next);
  return (
    <span className="muted" title={words.title} data-testid="next-holder">
      {words.label}
    </span>
  );
}
