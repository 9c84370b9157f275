/**
 * At least one example per verb, shown in its help. Keyed by the verb's path after `steward`; a
 * test checks that every verb has one and that each example passes the grammar (no unknown
 * option, the right arguments), so examples cannot drift from the options.
 *
 * @since 0.1.0
 */

const examples: Readonly<Record<string, ReadonlyArray<string>>> = {
  "": ["steward doctor", "steward policy check -- 'git push --force'", "steward algal check counter.algal.json"],
  "algal": ["steward algal check counter.algal.json", "steward algal run counter.algal.json --json"],
  "algal check": ["steward algal check counter.algal.json", "steward algal check settle.algal.json --profile pure"],
  "algal digest": ["steward algal digest counter.algal.json"],
  "algal canonical": ["steward algal canonical counter.algal.json --normalized"],
  "algal explain": ["steward algal explain swarm.algal.json --manifests ./programs"],
  "algal run": [
    "steward algal run counter.algal.json",
    "steward algal run swarm.algal.json --args swarm.args.json --responses swarm.responses.json --json",
    "steward algal run settle.algal.json --interface --args -"
  ],
  "algal resume": [
    "steward algal resume run.receipt.json --manifest controller.algal.json --response 'yes' --managed"
  ],
  "algal verify": [
    "steward algal verify run.receipt.json --manifest counter.algal.json",
    "steward algal verify run.receipt.json --manifest controller.algal.json --managed"
  ],
  "algal replay": ["steward algal replay run.receipt.json --manifest counter.algal.json --json"],
  "algal expr": [
    "steward algal expr '{\"op\":\"add\",\"args\":[1,2]}'",
    "steward algal expr @program.json --env @env.json --fuel 5000",
    "steward algal expr --env @env.json -"
  ],
  "algal suite": [
    "steward algal suite conformance/organisms.jsonl",
    "steward algal suite conformance/effects.jsonl --show 3 --json"
  ],
  "audit": ["steward audit status", "steward audit next --dry-run --project ../service"],
  "audit init": ["steward audit init --project ../service"],
  "audit status": ["steward audit status --json"],
  "audit next": ["steward audit next --dry-run"],
  "audit loop": [
    "steward audit loop --script audit-sessions.jsonl",
    "steward audit loop --step --model anthropic:claude-sonnet-4 --project ../service",
    "steward audit loop --max-sessions 3 --model openai:gpt-5 --json",
    "steward audit loop --agents --project ../service"
  ],
  "audit set-status": ["steward audit set-status F-001 planned --expect-revision 4"],
  "audit record-fix": ["steward audit record-fix F-001 --session S-12 --plan RP-001"],
  "audit record-verdict": ["steward audit record-verdict F-001 --verdict closed --session S-13"],
  "audit file-finding": [
    "steward audit file-finding --id F-002 --title 'Token logged' --severity high --dimension security"
    + " --unit src/auth --pass P-001 --body notes/F-002.md"
  ],
  "audit record-coverage": ["steward audit record-coverage P-001 --report notes/P-001.md --findings F-001,F-002"],
  "audit queue-pass": [
    "steward audit queue-pass P-002 --dimension security --units src/auth --charter security --stop 'no new findings'"
  ],
  "audit amend-pass": ["steward audit amend-pass P-002 --units src/auth,src/session"],
  "audit cancel-pass": ["steward audit cancel-pass P-002"],
  "audit record-plan": ["steward audit record-plan RP-001 --findings F-001,F-002 --body notes/RP-001.md"],
  "audit set-limit": ["steward audit set-limit max_reopen 3"],
  "audit block-on-norm": ["steward audit block-on-norm CF-001"],
  "audit record-ruling": ["steward audit record-ruling CF-001 --norm N-4 --ruled-by alice"],
  "audit update-catalog": ["steward audit update-catalog norm N-4 --source docs/norms.md --scope repo"],
  "audit record-refusal": [
    "steward audit record-refusal F-003 --reason out-of-scope",
    "steward audit record-refusal F-003 --clear"
  ],
  "audit propose-construal": [
    "steward audit propose-construal K-1 --role auditor --charter security --session S-2 --body notes/K-1.md"
  ],
  "audit admit-construal": ["steward audit admit-construal K-1 --admitter alice"],
  "audit render-views": ["steward audit render-views"],
  "audit dispatch": ["steward audit dispatch open --role auditor --executable codex --charter security"],
  "audit dispatch open": ["steward audit dispatch open --role auditor --executable codex --charter security"],
  "audit dispatch finish": ["steward audit dispatch finish --outcome completed --exit-status 0"],
  "audit lint": ["steward audit lint --json"],
  "audit metrics": ["steward audit metrics"],
  "audit import-state": ["steward audit import-state old/state.json --events old/events.jsonl"],
  "audit export-state": ["steward audit export-state state.json --events-out events.jsonl"],
  "audit dashboard": ["steward audit dashboard"],
  "audit unlock": ["steward audit unlock", "steward audit unlock --force --project ../service"],
  "audit cancel": ["steward audit cancel", "steward audit cancel --project ../service --json"],
  "audit migrate": ["steward audit migrate --dry-run", "steward audit migrate --project ../service --json"],
  "audit recover": ["steward audit recover", "steward audit recover --apply --json"],
  "audit doctor": ["steward audit doctor --project ../service"],
  "config": ["steward config list", "steward config set reflexes.route observe"],
  "config get": ["steward config get reflexes.route"],
  "config set": ["steward config set reflexes.route observe"],
  "config unset": ["steward config unset reflexes.route"],
  "config list": ["steward config list --json"],
  "config path": ["steward config path"],
  "db": ["steward db copy --to postgres://steward@db.internal:5432/steward"],
  "db copy": [
    "steward db copy --to postgres://steward@db.internal:5432/steward",
    "steward db copy --to postgres://steward@db.internal:5432/steward --merge --json",
    "steward db copy --to postgres://steward@db.internal:5432/steward --audit-project ~/src/shop-api"
  ],
  "demo": ["steward demo", "steward demo --json --state-dir /tmp"],
  "session": ["steward session run 'fix the flaky test' --model openai:gpt-5", "steward session list"],
  "session run": [
    "steward session run 'fix the flaky test' --model anthropic:claude-sonnet-4 --level assist",
    "steward session run 'rename the helper' --script turns.jsonl --json"
  ],
  "session list": ["steward session list --json"],
  "session show": ["steward session show 3f9a2c1d", "steward session show 3f9a2c1d call_2_1"],
  "session events": ["steward session events 3f9a2c1d --follow", "steward session events 3f9a2c1d --json -v"],
  "session continue": [
    "steward session continue 3f9a2c1d 'now add a test'",
    "steward session continue 3f9a2c1d",
    "steward session continue 3f9a2c1d 'go on' --script turns.jsonl"
  ],
  "session approve": [
    "steward session approve 3f9a2c1d call_2_1 --remember",
    "steward session approve 3f9a2c1d call_2_1 --scope 'git push origin *'"
  ],
  "session reject": ["steward session reject 3f9a2c1d call_2_1 --reason 'push to a branch, not main'"],
  "session verify": ["steward session verify 3f9a2c1d"],
  "session tools": ["steward session tools", "steward session tools --json"],
  "doctor": ["steward doctor", "steward doctor --json --state-dir /tmp/steward-demo"],
  "hooks": ["steward hooks install claude-code --level assist", "steward hooks status --json"],
  "hooks install": [
    "steward hooks install claude-code --workspace ~/src/app --dry-run",
    "steward hooks install gemini --level assist",
    "steward hooks install codex --user"
  ],
  "hooks uninstall": ["steward hooks uninstall claude-code --workspace ~/src/app"],
  "hooks status": ["steward hooks status --workspace ~/src/app"],
  "hooks approve": ["steward hooks approve 3f9a2c1d0b7e --state-dir ~/src/app/.steward"],
  "policy": ["steward policy check -- 'rm -rf build'", "steward policy explain --level read_only"],
  "policy check": [
    "steward policy check -- 'git push --force origin main'",
    "steward policy check --level read_only 'echo hi > out.txt'",
    "steward policy check --tool read --path ~/.ssh/id_rsa",
    "steward policy check --sandbox off -- 'some-tool --fix src'"
  ],
  "sandbox": [
    "steward sandbox -- npm test",
    "steward sandbox --allow-domain registry.npmjs.org -- npm install",
    "steward sandbox --workspace ~/src/app --level read_only -- bash -c 'make check'"
  ],
  "policy explain": ["steward policy explain --level assist --rules policy.yaml"],
  "policy test": ["steward policy test cases.yaml --rules policy.yaml"],
  "reflex": ["steward reflex status", "steward reflex decide route --text 'rename a variable'"],
  "reflex status": ["steward reflex status route"],
  "reflex decide": ["steward reflex decide settle --text 'Done, all tests pass.' --tool-calls 3"],
  "reflex decide route": ["steward reflex decide route --text 'fix the flaky test' --subject T-1"],
  "reflex decide settle": ["steward reflex decide settle --text 'Done, all tests pass.' --tool-calls 3"],
  "reflex features": ["steward reflex features route --text 'fix the flaky test'"],
  "reflex features route": ["steward reflex features route --text 'fix the flaky test'"],
  "reflex features settle": ["steward reflex features settle --text 'Should I continue?' --tool-calls 0"],
  "reflex reply": ["steward reflex reply 'no, that is wrong' --subject T-1"],
  "reflex label": ["steward reflex label route T-1 frontier"],
  "reflex train": ["steward reflex train route"],
  "reflex import": ["steward reflex import route history.jsonl --dry-run"],
  "reflex rollback": ["steward reflex rollback route 0"],
  "reflex replay": ["steward reflex replay 42"],
  "reflex check": ["steward reflex check settle.algal.json"]
}

/**
 * The examples of a command, by its path (`["steward", "algal", "check"]`).
 *
 * @since 0.1.0
 * @category lookups
 */
export const of = (path: ReadonlyArray<string>): ReadonlyArray<string> => examples[path.slice(1).join(" ")] ?? []
