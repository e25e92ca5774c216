// Written by `python -m cacaoai.server.methods_docs` from the API's method table
// (cacaoai.api.methods) after `npm run generate`; do not edit: .ci/gen_ts.sh makes it.
import { Code } from "@connectrpc/connect";

/** What a client must know of one call of cacao.v1.CacaoService. */
export interface MethodFacts {
  /** It takes one of the server's search slots (a full server refuses it with ResourceExhausted). */
  searches: boolean;
  /** Codes on which the call may be sent again. */
  retryCodes: Code[];
  /** Token roles that may call it. */
  roles: string[];
}

/** Every call of the service, by its name in the proto. */
export const METHODS: Readonly<Record<string, MethodFacts>> = {
  GetServerInfo: { searches: false, retryCodes: [Code.Unavailable], roles: ["all", "rules", "background"] },
  NewGame: { searches: false, retryCodes: [Code.Unavailable], roles: ["all", "rules", "background"] },
  ListLegalActions: { searches: false, retryCodes: [Code.Unavailable], roles: ["all", "rules", "background"] },
  ApplyAction: { searches: false, retryCodes: [Code.Unavailable], roles: ["all", "rules", "background"] },
  ValidateRecord: { searches: false, retryCodes: [Code.Unavailable], roles: ["all", "rules", "background"] },
  SuggestAction: { searches: true, retryCodes: [Code.Unavailable, Code.ResourceExhausted], roles: ["all", "background"] },
  AnalyzePosition: { searches: true, retryCodes: [Code.Unavailable, Code.ResourceExhausted], roles: ["all", "background"] },
  Analyze: { searches: true, retryCodes: [Code.Unavailable, Code.ResourceExhausted], roles: ["all", "background"] },
  ReviewGame: { searches: true, retryCodes: [Code.Unavailable, Code.ResourceExhausted], roles: ["all", "background"] },
  GetPuzzle: { searches: false, retryCodes: [Code.Unavailable], roles: ["all", "rules", "background"] },
  CheckPuzzle: { searches: false, retryCodes: [Code.Unavailable], roles: ["all", "rules", "background"] },
};

/** The calls that search. */
export const SEARCH_METHODS: readonly string[] = ["SuggestAction", "AnalyzePosition", "Analyze", "ReviewGame"];

/** Codes on which any call may be sent again. */
export const RETRY_ALWAYS: readonly Code[] = [Code.Unavailable];
