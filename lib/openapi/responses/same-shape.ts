// A compile-time check that a hand-written response schema describes exactly what a lib
// function returns (the same fields, optional where they are optional, the same types):
// `next build` and `tsc` fail when a field is added to, dropped from or changed in one and not
// the other.

type Flatten<T> = T extends (infer Item)[] ? Flatten<Item>[] : T extends object ? { [K in keyof T]: Flatten<T[K]> } : T;

export type SameShape<Schema, Returned> = (<T>() => T extends Flatten<Schema> ? 1 : 2) extends <T>() => T extends Flatten<Returned> ? 1 : 2 ? true : false;
