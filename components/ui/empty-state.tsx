import type { ReactNode } from "react";

export function EmptyState({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="panel empty-state" aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}
