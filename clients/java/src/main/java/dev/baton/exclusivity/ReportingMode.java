package dev.baton.exclusivity;

/** What is sent to Baton; the same three modes as Baton's TypeScript client (lib/exclusivity-client). */
public enum ReportingMode {
    /** Every entry as an event. */
    ALL("all"),
    /** Violations as events; every other entry only in per-minute counts (one small request a minute). */
    VIOLATIONS_AND_COUNTS("violations+counts"),
    /** Violations only: the rate is unknown, and a reporter that stopped looks like a healthy service. */
    VIOLATIONS("violations");

    private final String wireName;

    ReportingMode(String wireName) {
        this.wireName = wireName;
    }

    /** The name Baton's ingest API and the TypeScript client use. */
    public String wireName() {
        return wireName;
    }
}
