// Which holder changes move a hold: a leader change, or Key_Shared hash ranges moving between
// consumers. A violation near one of these is a failover overlap. Client-safe.

export const OWNERSHIP_CHANGE_KINDS = ["HOLDER_CHANGED", "HOLDER_LOST", "HOLDER_APPEARED", "HIDDEN_FLAP", "REPLAYED_FLAP", "RANGES_MOVED"] as const;
