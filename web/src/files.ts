// Records as files: a game saved as the service writes it (cacao-record/1), and a file
// loaded, checked by the service and opened in the replay viewer.
import { client, fromRecord } from "./api";
import { $, explain, say } from "./dom";
import { haveRules } from "./game";
import { openReplay } from "./replay";
import { loadLevels } from "./setup";
import { state } from "./state";

/** Downloads the record as the service writes it (cacao-record/1, canonical). */
export async function save(): Promise<void> {
  const record = state.mode === "replay" ? state.replay?.record : state.game?.record;
  if (!record) return;
  let text: string;
  try {
    text = (await client.validateRecord({ source: fromRecord(record) })).recordJson;
  } catch (e) {
    explain(e);
    return;
  }
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  link.download = `cacao-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-")}.json`;
  link.click();
  say(`saved ${record.actions.length} actions as ${link.download}`);
}

export async function load(file: File | undefined): Promise<void> {
  if (!file) return;
  const text = await file.text();
  $<HTMLInputElement>("load-file").value = "";
  await openRecord(text);
}

/** Checks a cacao-record/1 text with the service, which reads it, and opens it in the
 *  replay viewer at its last action (where "Play on from here" continues it). */
export async function openRecord(text: string): Promise<void> {
  try {
    const check = await client.validateRecord({ source: { case: "recordJson", value: text } });
    if (!check.valid || !check.record) {
      say(`The record is not valid: ${check.errorIndex === -1 ? "its header" : `action ${check.errorIndex}`} does not replay.`,
        true, check.errorMessage);
      return;
    }
    if (!haveRules()) await loadLevels();
    await openReplay(check.record, new Map(), check.record.actions.length);
  } catch (e) {
    explain(e);
  }
}
