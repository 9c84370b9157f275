import { assert, describe, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { ProtectedPaths } from "../src/index.js"
import { decide, Parser } from "./helpers.js"

// Issue 32: one list for the gate and the sandbox. Every row is held to its meaning: each secret
// name is masked by the sandbox (`isSecretName`) and asked about by the gate (read and write, in
// the tool and in the shell); each protected path is asked about before a write.
const SECRET_EXAMPLES: Record<string, ReadonlyArray<string>> = {
  "env": [".env"],
  "env-variant": [".env.local", ".env.production"],
  "env-suffix": ["prod.env"],
  "pem": ["server.pem"],
  "key": ["tls.key"],
  "pkcs12": ["cert.p12", "cert.pfx"],
  "ssh-key": ["id_rsa", "id_ed25519"],
  "netrc": [".netrc"],
  "pypirc": [".pypirc"],
  "git-credentials": [".git-credentials"],
  "credentials-json": ["credentials.json", "credentials"],
  "putty-key": ["deploy.ppk"],
  "htpasswd": [".htpasswd"],
  "keepass": ["vault.kdbx"],
  "terraform-state": ["terraform.tfstate", "terraform.tfstate.backup"],
  "cloudflare-dev-vars": [".dev.vars"],
  "mysql-client": [".my.cnf"],
  "s3cmd": [".s3cfg"],
  "gcloud-action-creds": ["gha-creds-1a2b.json"]
}

describe("ProtectedPaths: the one list", () => {
  it("every secret row has examples, and each is a secret name", () => {
    assert.deepStrictEqual(
      ProtectedPaths.secretNames.map(([id]) => id).sort(),
      Object.keys(SECRET_EXAMPLES).sort()
    )
    for (const names of Object.values(SECRET_EXAMPLES)) {
      for (const name of names) assert.isTrue(ProtectedPaths.isSecretName(name), name)
    }
  })

  it("templates and look-alikes are not secrets", () => {
    for (
      const name of [".env.example", ".env.sample", "app.env.example", "id_rsa.pub", "index.ts", "envfile", ".envrc"]
    ) {
      assert.isFalse(ProtectedPaths.isSecretName(name), name)
    }
  })

  layer(Parser)((it) => {
    it.effect("the gate asks before reading or writing every secret name (tool and shell)", () =>
      Effect.gen(function*() {
        for (const [id, names] of Object.entries(SECRET_EXAMPLES)) {
          for (const name of names) {
            for (
              const call of [
                { tool: "read" as const, paths: [`config/${name}`] as const },
                { tool: "write" as const, paths: [name] as const },
                { tool: "shell" as const, command: `cat ${name}` }
              ]
            ) {
              const decision = yield* decide(call)
              assert.strictEqual(decision.decision, "ask", `${id}: ${JSON.stringify(call)}`)
              assert.match(decision.citation.ruleId ?? "", /^universal\.secret\./)
            }
          }
        }
      }))

    it.effect("the gate asks before a write to every protected path, existing or not", () =>
      Effect.gen(function*() {
        for (const entry of ProtectedPaths.workspaceProtected) {
          const target = entry.path.replace("/*/", "/sub/")
          const inside = entry.kind === "dir" ? `${target}/settings.json` : target
          for (
            const call of [
              { tool: "write" as const, paths: [inside] as const },
              { tool: "shell" as const, command: `echo x > ${inside}` }
            ]
          ) {
            const decision = yield* decide(call)
            assert.strictEqual(decision.decision, "ask", `${entry.path}: ${JSON.stringify(call)}`)
          }
        }
        // extracting or copying into the git directory installs hooks and config
        for (const command of ["tar -xf hooks.tar -C .git", "cp -r tpl/hooks .git/", "rm -rf .steward"]) {
          assert.strictEqual((yield* decide({ tool: "shell", command })).decision, "ask", command)
        }
        // the rest of the workspace stays routine
        for (const command of ["echo x > notes.md", "cp a.ts src/b.ts", "mkdir -p dist"]) {
          assert.strictEqual((yield* decide({ tool: "shell", command })).decision, "allow", command)
        }
      }))
  })
})
