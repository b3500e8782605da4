package dev.baton.exclusivity.testkit;

import java.util.HashMap;
import java.util.Map;

/** key=value command-line arguments of the test kit's programs. */
final class Args {
    private final Map<String, String> values = new HashMap<>();

    Args(String[] args) {
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq < 1) throw new IllegalArgumentException("expected key=value, got " + arg);
            values.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
    }

    String get(String key) {
        String value = values.get(key);
        if (value == null) throw new IllegalArgumentException("missing argument " + key + "=...");
        return value;
    }

    String get(String key, String fallback) {
        return values.getOrDefault(key, fallback);
    }

    int getInt(String key, int fallback) {
        return Integer.parseInt(get(key, Integer.toString(fallback)));
    }
}
