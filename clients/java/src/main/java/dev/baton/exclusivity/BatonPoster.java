package dev.baton.exclusivity;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/** One POST of a JSON body to Baton's ingest API with the client's token; the caller decides what the answer means. */
final class BatonPoster {
    record Answer(int status, String body, Long retryAfterMs) {
        boolean isOk() {
            return status >= 200 && status < 300;
        }

        /** 408, 429 and 5xx may pass on a later try; other 4xx will not (bad token, body, size). */
        boolean isRetryable() {
            return status == 408 || status == 429 || status >= 500;
        }
    }

    private final URI base;
    private final String token;
    private final Duration timeout;
    private final HttpClient http;

    BatonPoster(BatonSettings settings) {
        String url = settings.batonUrl().toString().replaceAll("/+$", "");
        this.base = URI.create(url + "/");
        this.token = settings.batonToken();
        this.timeout = Duration.ofMillis(settings.requestTimeoutMs());
        // HTTP/1.1: over http:// the JDK's default (HTTP/2) sends "Upgrade: h2c", and a Next.js
        // server hands such a request to its upgrade handler, which never answers it: every POST
        // to a real Baton timed out (the tests' plain Node server had not shown it).
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(timeout).build();
    }

    /** POSTs json to path (e.g. "api/v1/exclusivity-events"); throws when Baton cannot be reached. */
    Answer post(String path, byte[] json) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(base.resolve(path))
                .timeout(timeout)
                .header("authorization", "Bearer " + token)
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(json))
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        return new Answer(response.statusCode(), response.body(), response.headers().firstValue("retry-after").map(BatonPoster::parseRetryAfter).orElse(null));
    }

    /** Seconds, or an HTTP date; null when it is neither. */
    static Long parseRetryAfter(String header) {
        try {
            double seconds = Double.parseDouble(header);
            return seconds >= 0 ? (long) (seconds * 1000) : null;
        } catch (NumberFormatException notSeconds) {
            try {
                return Math.max(0, ZonedDateTime.parse(header, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli() - System.currentTimeMillis());
            } catch (DateTimeParseException notDate) {
                return null;
            }
        }
    }
}
