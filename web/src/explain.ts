// The service's errors in a player's words: one sentence that says what to do, worded
// from the error's reason (the API's ErrorReason) and the field paths it names, never
// from the service's English descriptions; and for developers the code, the reason and
// the field paths with the service's own description (each description once, with
// every field it concerns).
import {
  BadRequestSchema, Code, ConnectError, ErrorInfoSchema, ErrorReason, errorReason, PreconditionFailureSchema,
} from "@cacaoai/client";

export interface Plain {
  /** One sentence for the player. */
  sentence: string;
  /** The service's words, for developers ("" when there is nothing more to say). */
  details: string;
}

const BUSY = "The AI service is busy with other games: try again in a moment.";
const SLOW = "The AI service took too long to answer: try again.";
const REFUSED = "The AI service refused the request: the details below say why.";

/** The sentence a player reads for an illegal action, from the field path at fault
 *  (the first one: "action.place.x", "allow[0].seat", "action.overbuild", ...). */
function illegal(field: string): string {
  const [kind, part] = /(?:^|\.)(place|overbuild|discard|resolve)(?:\.(\w+))?$/.exec(field)?.slice(1) ?? [];
  if (field.endsWith(".seat")) return "It is not this seat's turn.";
  if (part === "tile") return "That tile is not in the hand of the seat to act.";
  if (part === "fills") return "The display tiles cannot fill the closed cells that way: pick one of the ways offered.";
  if (part === "gold" || part === "cacao") return "That is not one of the results you may choose: pick one of those offered.";
  if (part === "rotation") return "A 1111 tile looks the same every way round, so it is never turned.";
  if (kind === "place" && (part === "x" || part === "y")) {
    return "A worker tile can go only on an empty cell beside a jungle tile (the cells shown in green).";
  }
  if (kind === "overbuild" && (part === "x" || part === "y")) {
    return "You can overbuild only one of your own tiles, and not one that was itself laid by an overbuild.";
  }
  // the kind of action is what the position does not allow now
  if (kind === "place") return "First choose how to use your harvest: pick one of the results offered.";
  if (kind === "resolve") return "There is no harvest to choose now: place a tile.";
  if (kind === "discard") return "You may discard only when none of your tiles fits anywhere.";
  if (kind === "overbuild") return "You can overbuild only once the jungle deck and the display are empty, and it costs a sun token.";
  return "That move is not allowed here.";
}

/** The player's sentence for each reason (from the field paths), or undefined for the
 *  status code's sentence. Every reason has its entry, so that a reason added to the
 *  API does not build until it is worded here. */
const BY_REASON: Record<ErrorReason, ((fields: string[]) => string) | string | undefined> = {
  [ErrorReason.ERROR_REASON_UNSPECIFIED]: undefined,
  [ErrorReason.INVALID_REQUEST]: REFUSED,
  [ErrorReason.INVALID_POSITION]: "The rules do not allow this position: start a new game or load another record.",
  [ErrorReason.INVALID_RECORD]: "The game's record does not replay: start a new game or load another record.",
  [ErrorReason.INVALID_ACTION]: REFUSED,
  [ErrorReason.ILLEGAL_ACTION]: (fields) => illegal(fields[0] ?? ""),
  [ErrorReason.UNKNOWN_LEVEL]: "The AI service does not know that strength level: pick another.",
  [ErrorReason.UNDECODABLE_REQUEST]: REFUSED,
  [ErrorReason.GAME_OVER]: "The game is over: nobody moves any more.",
  [ErrorReason.HIDDEN_INFORMATION]: "That needs tiles this seat cannot see.",
  [ErrorReason.POSITION_MISMATCH]: "The game changed while your move was on its way: look at the board again and replay it.",
  [ErrorReason.TOO_MANY_SEARCHES]: BUSY,
  [ErrorReason.TOO_MANY_CLIENT_SEARCHES]: BUSY,
  [ErrorReason.TOO_MANY_CLIENT_CALLS]: BUSY,
  [ErrorReason.TOO_MANY_CALLS]: BUSY,
  [ErrorReason.SHUTTING_DOWN]: "The AI service is restarting: try again in a moment.",
  [ErrorReason.DEADLINE_TOO_SHORT]: SLOW,
  [ErrorReason.REQUEST_TIMEOUT]: SLOW,
  [ErrorReason.UNAUTHENTICATED]: undefined,
  [ErrorReason.PERMISSION_DENIED]: undefined,
  [ErrorReason.PUZZLE_NOT_FOUND]: (fields) => (fields.includes("puzzle_id")
    ? "The service no longer has that puzzle: take the next one."
    : "No puzzle fits these filters: choose other ones."),
};

/** The player's sentence for a status code (an error without a reason the page knows). */
function byCode(code: Code): string {
  switch (code) {
    case Code.Unauthenticated:
      return "This server needs a token: enter it under New game, or open the page with #token=YOUR_TOKEN at the end of its address.";
    case Code.PermissionDenied: return "Your token may ask the rules but not the AI: ask the server's operator for another.";
    case Code.Unavailable: case Code.Unknown: return "The AI service cannot be reached: check that cacao-server is running, then try again.";
    case Code.DeadlineExceeded: return SLOW;
    case Code.ResourceExhausted: return "The AI service is busy: try again in a moment.";
    default: return REFUSED;
  }
}

/** Any error of a call, for a player and for a developer. */
export function plainError(error: unknown): Plain {
  const e = ConnectError.from(error);
  const fields = e.findDetails(BadRequestSchema).flatMap((d) => d.fieldViolations.map((v) => ({ field: v.field, text: v.description })));
  const pre = e.findDetails(PreconditionFailureSchema).flatMap((d) => d.violations.map((v) => ({ field: v.subject, text: v.description })));
  const reason = e.findDetails(ErrorInfoSchema)[0]?.reason ?? "";
  // "action.place.x, action.place.y: (-1,-1) is not ..." once, not once per field
  const byText = new Map<string, string[]>();
  for (const v of [...fields, ...pre]) byText.set(v.text, [...(byText.get(v.text) ?? []), v.field]);
  const said = [...byText].map(([text, names]) => `${names.join(", ")}: ${text}`);
  const codeName = e.code === Code.Unknown && !(error instanceof ConnectError) ? "" : Code[e.code]?.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();
  const details = [codeName, reason && `(${reason})`, said.length ? `— ${said.join("; ")}` : `— ${e.rawMessage}`]
    .filter(Boolean).join(" ");
  const worded = BY_REASON[errorReason(reason)];
  const paths = [...fields, ...pre].map((v) => v.field);
  const sentence = typeof worded === "function" ? worded(paths) : worded ?? byCode(e.code);
  return { sentence, details };
}
