package dev.baton.exclusivity.testkit;

import dev.baton.exclusivity.BatonSettings;

/**
 * Builds settings from key=value arguments and prints "ok", or "error (message)" with the one-line
 * message a bad setting gives.
 */
public final class SettingsCheck {
    public static void main(String[] argv) {
        Args args = new Args(argv);
        try {
            BatonSettings.Builder builder = BatonSettings.builder()
                    .batonUrl(args.get("batonUrl", "http://127.0.0.1:3000"))
                    .batonToken(args.get("token", "a-token"))
                    .redisUrl(args.get("redisUrl", "redis://127.0.0.1:6379"))
                    .maxBatch(args.getInt("maxBatch", 1_000))
                    .keyTtlMs(args.getInt("keyTtlMs", 60_000))
                    .keySampleRate(Double.parseDouble(args.get("keySampleRate", "1")));
            builder.build();
            System.out.println("ok");
        } catch (IllegalArgumentException e) {
            System.out.println("error " + e.getMessage());
        }
    }
}
