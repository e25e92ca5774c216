// The service's errors in words: the Connect code, and the field paths and
// descriptions of the google.rpc details (BadRequest, PreconditionFailure, ErrorInfo).
import { Code, ConnectError } from "@connectrpc/connect";
import { codeToString } from "@connectrpc/connect/protocol-connect";
import { BadRequestSchema, ErrorInfoSchema, PreconditionFailureSchema } from "./gen/google/rpc/error_details_pb.js";

/** What went wrong with a call, for showing to a person or a log. */
export interface ErrorExplanation {
  /** The Connect code in its wire form, e.g. "invalid_argument". */
  code: string;
  /** The service's message, without the code. */
  message: string;
  /** "field: description" for each BadRequest field violation, and "subject:
   *  description" for each PreconditionFailure violation. */
  violations: string[];
  /** The ErrorInfo reason, e.g. "ILLEGAL_ACTION" ("" when there is none). */
  reason: string;
}

/** Any error of a call (a ConnectError, or anything thrown on the way) explained. */
export function explainError(error: unknown): ErrorExplanation {
  const e = ConnectError.from(error);
  const violations = [
    ...e.findDetails(BadRequestSchema).flatMap((d) => d.fieldViolations.map((v) => `${v.field}: ${v.description}`)),
    ...e.findDetails(PreconditionFailureSchema).flatMap((d) => d.violations.map((v) => `${v.subject}: ${v.description}`)),
  ];
  const reason = e.findDetails(ErrorInfoSchema)[0]?.reason ?? "";
  return { code: codeToString(e.code), message: e.rawMessage, violations, reason };
}

/** True for the codes that mean "the server needs (another) token". */
export function needsToken(error: unknown): boolean {
  return error instanceof ConnectError &&
    (error.code === Code.Unauthenticated || error.code === Code.PermissionDenied);
}
