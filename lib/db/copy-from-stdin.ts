import type pg from "pg";

// COPY ... FROM STDIN over a pg connection, without pg-copy-streams: pg accepts
// any "submittable" object, hands it the connection, and calls it back on the protocol
// messages. On CopyInResponse the data goes out as CopyData messages followed by CopyDone;
// the server answers CommandComplete and ReadyForQuery, or an error. This is the same wire
// protocol pg-copy-streams and psql's \copy use.

/** pg's Connection has these (lib/connection.js); @types/pg does not declare them. */
type CopyInMethods = { sendCopyFromChunk(chunk: Buffer): void; endCopyFrom(): void };

class CopyFromStdin implements pg.Submittable {
  private rowCount = 0;
  readonly done: Promise<number>;
  private resolve!: (rows: number) => void;
  private reject!: (error: Error) => void;

  constructor(
    private readonly text: string,
    private readonly chunks: readonly Buffer[],
  ) {
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  submit(connection: pg.Connection): void {
    connection.query(this.text);
  }

  handleCopyInResponse(connection: pg.Connection): void {
    const copyIn = connection as pg.Connection & CopyInMethods;
    for (const chunk of this.chunks) copyIn.sendCopyFromChunk(chunk);
    copyIn.endCopyFrom();
  }

  handleCommandComplete(message: { text: string }): void {
    this.rowCount = Number(message.text.split(" ")[1] ?? 0);
  }

  // pg calls this and forgets the query, with no ReadyForQuery after it: for an error of the
  // server (bad data, a constraint, a statement timeout) and for a connection that died.
  handleError(error: Error): void {
    this.reject(error);
  }

  handleReadyForQuery(): void {
    this.resolve(this.rowCount);
  }

  // The protocol handlers pg may call for other message types; COPY FROM sends none of them.
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
}

/** Runs `COPY <target> FROM STDIN` with the given data (text or binary, as the statement says); resolves with the row count. */
export function copyFromStdin(client: pg.Client | pg.PoolClient, copyStatement: string, data: readonly Buffer[]): Promise<number> {
  const copy = new CopyFromStdin(copyStatement, data);
  client.query(copy);
  return copy.done;
}
