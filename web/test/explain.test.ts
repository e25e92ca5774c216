// The service's errors in a player's words: worded from the reason and the field
// paths, whatever the service's descriptions say.
import assert from "node:assert/strict";
import { test } from "node:test";
import { BadRequestSchema, Code, ConnectError, ErrorInfoSchema, ErrorReason } from "@cacaoai/client";
import { plainError } from "../src/explain";

/** An error as the service sends it: a code, a reason and field violations. */
function refusal(code: Code, reason: string, fields: string[] = [], description = "some words"): ConnectError {
  const details = [{ desc: ErrorInfoSchema, value: { reason, domain: "cacao.v1" } }];
  return new ConnectError("refused", code, undefined, fields.length
    ? [{ desc: BadRequestSchema, value: { fieldViolations: fields.map((field) => ({ field, description })) } }, ...details]
    : details);
}

const illegal = (...fields: string[]) =>
  plainError(refusal(Code.InvalidArgument, "ILLEGAL_ACTION", fields, "the game is over (words the page must not read)")).sentence;

test("an illegal action is worded from the field at fault, not from the service's description", () => {
  assert.equal(illegal("action.seat"), "It is not this seat's turn.");
  assert.match(illegal("action.place.x", "action.place.y"), /empty cell beside a jungle tile/);
  assert.match(illegal("action.overbuild.x", "action.overbuild.y"), /one of your own tiles/);
  assert.match(illegal("action.discard.tile"), /not in the hand/);
  assert.match(illegal("allow[2].resolve.gold"), /results you may choose/);
  assert.match(illegal("action.resolve"), /no harvest to choose now/);
  assert.match(illegal("action.place"), /First choose how to use your harvest/);
  assert.match(illegal("action.overbuild"), /sun token/);
  assert.equal(illegal("action"), "That move is not allowed here.");
});

test("every reason the API lists gives the player a sentence", () => {
  const names = Object.keys(ErrorReason).filter((k) => Number.isNaN(Number(k)) && k !== "ERROR_REASON_UNSPECIFIED");
  assert.equal(names.length, 20);
  for (const name of names) {
    const { sentence, details } = plainError(refusal(Code.InvalidArgument, name));
    assert.ok(sentence.endsWith("."), name);
    assert.ok(details.includes(`(${name})`), details);
  }
  assert.match(plainError(refusal(Code.ResourceExhausted, "TOO_MANY_CLIENT_SEARCHES")).sentence, /busy/);
  assert.match(plainError(refusal(Code.Unauthenticated, "UNAUTHENTICATED")).sentence, /needs a token/);
  assert.match(plainError(refusal(Code.NotFound, "PUZZLE_NOT_FOUND", ["puzzle_id"], "no puzzle 'x'")).sentence,
    /no longer has that puzzle/);
  assert.match(plainError(refusal(Code.NotFound, "PUZZLE_NOT_FOUND")).sentence, /No puzzle fits these filters/);
});

test("a reason the page does not know is worded from the status code", () => {
  assert.match(plainError(refusal(Code.ResourceExhausted, "A_REASON_OF_A_NEWER_SERVER")).sentence, /busy/);
  assert.match(plainError(new Error("fetch failed")).sentence, /cannot be reached/);
});

test("the details name the code, the reason and each description once with its fields", () => {
  const { details } = plainError(refusal(Code.InvalidArgument, "ILLEGAL_ACTION", ["action.place.x", "action.place.y"], "(9,9) is not free"));
  assert.equal(details, "invalid_argument (ILLEGAL_ACTION) — action.place.x, action.place.y: (9,9) is not free");
});
