import { closeSync, existsSync, fstatSync, openSync, readSync } from "node:fs";

const TAIL_BYTES = 64 * 1024;

/** The last `lineCount` lines of a log file, for error messages; "" when there is no file yet. */
export function readLogTail(file: string, lineCount: number): string {
  if (!existsSync(file)) return "";
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return buffer
      .toString("utf8")
      .split("\n")
      .slice(-lineCount - 1)
      .join("\n")
      .trimEnd();
  } finally {
    closeSync(fd);
  }
}
