// The service's errors in a player's words: one sentence that says what to do, and
// for developers the code, the reason and the field paths with the service's own
// description (each description once, with every field it concerns).
import { BadRequestSchema, Code, ConnectError, ErrorInfoSchema, PreconditionFailureSchema } from "@cacaoai/client";

export interface Plain {
  /** One sentence for the player. */
  sentence: string;
  /** The service's words, for developers ("" when there is nothing more to say). */
  details: string;
}

/** The sentence a player reads for an illegal action, from the field at fault and the
 *  service's description (the service gives ILLEGAL_ACTION for all of them). */
function illegal(fields: string[], description: string): string {
  const field = fields[0] ?? "";
  const cell = /\((-?\d+),(-?\d+)\)/.exec(description);
  const at = cell ? ` on (${cell[1]},${cell[2]})` : "";
  if (field.endsWith(".seat")) return "It is not this seat's turn.";
  if (field.endsWith(".tile")) return "That tile is not in the hand of the seat to act.";
  if (field.endsWith(".fills")) return "The display tiles cannot fill the closed cells that way: pick one of the ways offered.";
  if (field.endsWith(".gold") || field.endsWith(".cacao")) return "That is not one of the results you may choose: pick one of those offered.";
  if (field.endsWith(".rotation")) return "A 1111 tile looks the same every way round, so it is never turned.";
  if (/empty cell next to a jungle tile/.test(description)) {
    return `A worker tile cannot go${at}: it needs an empty cell beside a jungle tile (the cells shown in green).`;
  }
  if (/not a worker tile of seat/.test(description)) return `You can overbuild only one of your own tiles, and the one${at} is not.`;
  if (/placed by an overbuild/.test(description)) return `The tile${at} was itself laid by an overbuild, so it cannot be covered.`;
  if (/costs a sun token/.test(description)) return "Overbuilding costs a sun token, and this seat has none.";
  if (/deck and the display to be empty/.test(description)) return "You can overbuild only once the jungle deck and the display are empty.";
  if (/discard is allowed only/.test(description)) return "You may discard only when your tiles fit nowhere.";
  if (/must choose a resolve/.test(description)) return "First choose how to use your harvest: pick one of the results offered.";
  if (/no resolution is pending/.test(description)) return "There is no harvest to choose now: place a tile.";
  if (/game is over/.test(description)) return "The game is over: nobody moves any more.";
  return "That move is not allowed here.";
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
  let sentence: string;
  switch (reason || e.code) {
    case "ILLEGAL_ACTION": sentence = illegal([...byText.values()].flat(), [...byText.keys()].join(" ")); break;
    case "GAME_OVER": sentence = "The game is over: nobody moves any more."; break;
    case "POSITION_MISMATCH": sentence = "The game changed while your move was on its way: look at the board again and replay it."; break;
    case "HIDDEN_INFORMATION": sentence = "That needs tiles this seat cannot see."; break;
    case "INVALID_RECORD": sentence = "The game's record does not replay: start a new game or load another record."; break;
    case "TOO_MANY_SEARCHES": case "TOO_MANY_CLIENT_SEARCHES": case "TOO_MANY_CLIENT_CALLS":
      sentence = "The AI service is busy with other games: try again in a moment."; break;
    case "UNAUTHENTICATED": case Code.Unauthenticated:
      sentence = "This server needs a token: enter it under New game, or open the page with #token=YOUR_TOKEN at the end of its address."; break;
    case "PERMISSION_DENIED": case Code.PermissionDenied: sentence = "Your token may ask the rules but not the AI: ask the server's operator for another."; break;
    case Code.Unavailable: case Code.Unknown: sentence = "The AI service cannot be reached: check that cacao-server is running, then try again."; break;
    case Code.DeadlineExceeded: sentence = "The AI service took too long to answer: try again."; break;
    case Code.ResourceExhausted: sentence = "The AI service is busy: try again in a moment."; break;
    default: sentence = "The AI service refused the request: the details below say why.";
  }
  return { sentence, details };
}
