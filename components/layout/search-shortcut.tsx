"use client";

import { useEffect } from "react";

/** Whether a key press goes to something the reader types into (then "/" is just a slash). */
function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement;
}

/** "/" focuses the page's search field, as in Grafana and GitHub. Renders nothing. */
export function SearchShortcut() {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey || isTypingTarget(event.target)) return;
      const search = document.querySelector<HTMLInputElement>('main input[type="search"]');
      if (search === null) return;
      event.preventDefault();
      search.focus();
      search.select();
    };
    document.addEventListener("keydown", onKeyDown);
    return () => document.removeEventListener("keydown", onKeyDown);
  }, []);
  return null;
}
