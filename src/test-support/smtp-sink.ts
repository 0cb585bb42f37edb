/**
 * A real SMTP server on loopback (npm `smtp-server`) that keeps every message it takes,
 * parsed by `mailparser`: what e-mail tests read instead of a mocked transport.
 */
import type { AddressInfo } from "node:net";
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface SmtpSink {
  /** `smtp://user:pass@127.0.0.1:PORT`, for SMTP_URL. */
  url: string;
  messages: ParsedMail[];
  /** Resolves once `count` messages have arrived (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ParsedMail[]>;
  /** Makes the server refuse the next messages with a 550 until set back. */
  refuse(refusing: boolean): void;
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: ParsedMail[] = [];
  let refusing = false;
  const server = new SMTPServer({
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === "user" && auth.password === "pass") callback(null, { user: auth.username });
      else callback(new Error("Invalid username or password"));
    },
    onData(stream, _session, callback) {
      if (refusing) {
        stream.resume();
        stream.on("end", () => callback(Object.assign(new Error("Mailbox unavailable"), { responseCode: 550 })));
        return;
      }
      simpleParser(stream, { keepCidLinks: true }).then(
        (mail) => {
          messages.push(mail);
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://user:pass@127.0.0.1:${port}`,
    messages,
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} e-mails, got ${messages.length}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return messages;
    },
    refuse(value) {
      refusing = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
