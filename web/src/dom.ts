// The page's elements and its message line: one sentence for the player (errors in
// the player's words, with the service's own for developers), logged unless an error.
import { plainError } from "./explain";
import { state } from "./state";

export const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

/** Shows a message: one sentence, and optionally the details for developers; logged unless
 *  an error, or `log` is false (a verdict said as the replay steps, not an event of the game). */
export function say(text: string, error = false, details = "", log = !error): void {
  state.message = text;
  const box = $("message");
  box.replaceChildren();
  box.className = error ? "error" : "";
  const sentence = document.createElement("span");
  sentence.className = "sentence";
  sentence.textContent = text;
  box.appendChild(sentence);
  if (details) {
    const more = document.createElement("details");
    more.className = "dev";
    const summary = document.createElement("summary");
    summary.textContent = "details";
    const code = document.createElement("code");
    code.textContent = details;
    more.append(summary, code);
    more.addEventListener("toggle", () => box.classList.toggle("open", more.open));
    box.appendChild(more);
  }
  markClipped();
  if (log) {
    const li = document.createElement("li");
    li.textContent = text;
    $("log").prepend(li);
  }
}

/** The message keeps a slot of two lines, so that the board below never moves; a longer one
 *  is marked, and unfolds over the board on hover, focus or a tap. */
export function markClipped(): void {
  const box = $("message");
  box.classList.remove("open");
  const clipped = box.scrollHeight > box.clientHeight + 1;
  box.classList.toggle("clipped", clipped);
  if (clipped) {
    box.tabIndex = 0;
    box.title = state.message;
  } else {
    box.removeAttribute("tabindex");
    box.removeAttribute("title");
  }
}

/** Shows why a call failed: a sentence for the player, the service's words in the details. */
export function explain(e: unknown): void {
  const { sentence, details } = plainError(e);
  say(sentence, true, details);
}

/** Adds a paragraph of class `cls` and markup `html` to `box`, and returns it: a panel's lines. */
export function paragraphs(box: HTMLElement): (cls: string, html: string) => HTMLParagraphElement {
  return (cls, html) => {
    const p = document.createElement("p");
    p.className = cls;
    p.innerHTML = html;
    box.appendChild(p);
    return p;
  };
}

/** The message line and the board under it brought into view when they are not (on a phone or a
 *  tablet the panels are below the board: a control there that changes the board shows it). */
export function showBoard(): void {
  const slot = $("message-slot"), board = $("board-wrap").getBoundingClientRect();
  if (slot.getBoundingClientRect().top < 0 || board.bottom > innerHeight) slot.scrollIntoView({ block: "start" });
}
