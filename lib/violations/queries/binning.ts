/** How rows are binned: bins of `strideMs`, with an origin per span of the zone's UTC offset (a local midnight), or one bin over a scope. */
export type Binning = { strideMs: number; spans: readonly { fromMs: number; originMs: number }[] };
