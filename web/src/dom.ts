// The page's elements and its message line: one sentence for the player (errors in
// the player's words, with the service's own for developers), logged unless an error.
import { plainError } from "./explain";
import { state } from "./state";

export const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

/** Shows a message: one sentence, and optionally the details for developers. */
export function say(text: string, error = false, details = ""): void {
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
  if (!error) {
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
