import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { type Autonomy, Policy, ShellParser } from "../src/index.js"
import { DEV_TOOLS } from "../src/internal/analyze/devTools.js"
import { GLOBAL_CONFIG, PUBLISH, REMOTE_CHANGES, SECRET_COMMANDS } from "../src/internal/intents.js"
import { Parser } from "./helpers.js"

// Issue 32: the tables are data, held row by row. Every common developer tool is routine at
// `execute` (and still asks at `assist`), and a command hidden in its arguments is still read;
// every publishing, global-configuration and credential row asks at every level with an example,
// and its look-alikes that stay on the machine do not.
const decide = (command: string, level: Autonomy.Level = "execute") =>
  Effect.gen(function*() {
    const parser = yield* ShellParser.ShellParser
    yield* parser.ready
    const compiled = yield* Policy.compile({ level, workspace: "/srv/app" })
    return Policy.decideSync(compiled, parser, { tool: "shell", command })
  })

const EXAMPLES: Record<string, ReadonlyArray<string>> = {
  "publish.npm": ["npm publish --access public"],
  "publish.pnpm": ["pnpm publish"],
  "publish.yarn": ["yarn publish"],
  "publish.yarn-npm": ["yarn npm publish"],
  "publish.bun": ["bun publish"],
  "publish.docker": ["docker push acme/api:1"],
  "publish.docker-image": ["docker image push acme/api:1"],
  "publish.podman": ["podman push acme/api:1"],
  "publish.buildx": ["docker buildx build --push -t acme/api ."],
  "publish.buildx-bake": ["docker buildx bake --push"],
  "publish.docker-build-push": ["docker build --push -t acme/api ."],
  "publish.gh-release": ["gh release create v1.0.0"],
  "publish.cargo": ["cargo publish"],
  "publish.twine": ["twine upload dist/*"],
  "publish.gem": ["gem push x.gem"],
  "publish.poetry": ["poetry publish --build"],
  "publish.uv": ["uv publish"],
  "publish.git-push": ["git push origin main"],
  "publish.git-lfs": ["git lfs push origin main"],
  "publish.lerna": ["lerna publish from-git"],
  "publish.changeset": ["changeset publish"],
  "publish.docker-compose": ["docker compose push"],
  "publish.docker-compose-v1": ["docker-compose push"],
  "publish.docker-manifest": ["docker manifest push acme/api"],
  "publish.podman-manifest": ["podman manifest push acme/api"],
  "publish.buildx-registry": ["docker buildx build --output type=registry ."],
  "publish.vsce": ["vsce publish", "ovsx publish"],
  "publish.gradle": [
    "./gradlew clean publish --stacktrace",
    "gradle publishToMavenCentral",
    "./gradlew gitPublishPush"
  ],
  "publish.maven": ["mvn -B deploy", "./mvnw deploy -DskipTests"],
  "publish.sbt": ["sbt +publishSigned", "sbt release"],
  "publish.goreleaser": ["goreleaser", "goreleaser release --clean"],
  "publish.promu": ["promu release .tarballs"],
  "publish.deploy": ["firebase deploy", "netlify deploy --prod", "npx wrangler deploy", "flyctl deploy"],
  "publish.vercel": ["vercel --prod"],
  "publish.wrangler": ["wrangler publish", "wrangler secret put KEY"],
  "publish.mkdocs": ["mkdocs gh-deploy --force"],
  "publish.ghp-import": ["ghp-import -n -p -f site"],
  "publish.gh-pages": ["gh-pages -d dist"],
  "publish.npm-registry": [
    "npm unpublish my-pkg@1.0.0 --force",
    "npm deprecate x 'old'",
    "pnpm dist-tag add x@1 latest"
  ],
  "publish.helm": ["helm push chart.tgz oci://r"],
  "publish.python-publishers": ["flit publish", "hatch publish", "pdm publish"],
  "publish.nuget": ["dotnet nuget push x.nupkg"],
  "global-config.git": [
    "git config --global user.name 'x'",
    "git config --system core.pager less",
    "git config set --global core.pager less"
  ],
  "global-config.npm": ["npm config set package-lock false", "yarn config set registry x"],
  "global-config.npm-set": ["npm set init-author-name x"],
  "global-config.pip": ["pip config set global.index-url https://x.example/simple"],
  "global-config.poetry": ["poetry config virtualenvs.in-project true"],
  "global-config.cargo-login": ["cargo login"],
  "global-config.npm-global": ["npm install -g left-pad-cli", "npm -g i x", "pnpm add -g x -D"],
  "global-config.npm-global-long": ["npm install --global x", "bun add --location=global x"],
  "global-config.yarn-global": ["yarn global add x"],
  "secret.registry-login": ["echo \"$PW\" | docker login -u x --password-stdin", "npm login"],
  "secret.npm-adduser": ["npm adduser"],
  "secret.cli-auth": ["gh auth token", "gh auth login --with-token"],
  "secret.gcloud-token": ["gcloud auth print-access-token"],
  "secret.az-token": ["az account get-access-token"],
  "secret.aws-token": ["aws ecr get-login-password --region x", "aws configure get aws_secret_access_key"],
  "secret.kubectl-raw": ["kubectl config view --raw"],
  "secret.kubectl-secret": ["kubectl get secret db -o yaml"],
  "secret.terraform-output": ["terraform output -raw db_password"],
  "secret.git-credential": ["git credential fill", "git credential-store get"],
  "remote-change.gh-delete": ["gh repo delete acme/api --yes", "gh secret delete X"],
  "remote-change.gh-api-write": ["gh api -X DELETE repos/acme/api", "gh api --method=POST repos/acme/api/forks"],
  "remote-change.kubectl": ["kubectl apply -f k8s/", "kubectl scale deploy/api --replicas=0", "kubectl delete ns x"],
  "remote-change.helm": ["helm upgrade --install api ./chart"],
  "remote-change.terraform": ["terraform apply -auto-approve", "pulumi up --yes", "tofu destroy"],
  "remote-change.docker-context": ["docker --context prod rm -f api"],
  "remote-change.docker-prune": ["docker system prune -af --volumes"]
}

// Spellings that stay on the machine.
const ROUTINE = [
  "npm install --save-dev left-pad",
  "npm i --legacy-peer-deps",
  "pnpm add -D @types/node",
  "goreleaser --clean --snapshot",
  "goreleaser build --single-target",
  "goreleaser check",
  "./gradlew build",
  "mvn -B verify",
  "sbt test",
  "git config --get remote.origin.url",
  "git config --global --get user.name",
  "npm config get registry",
  "poetry config --list",
  "promu tarball --prefix . .",
  "kubectl version --client",
  "helm template ./chart",
  "docker run --rm alpine sh -c 'echo hi'",
  "printenv PATH"
]

describe("intent tables (issue 32)", () => {
  layer(Parser)((it) => {
    it.effect("every publishing, global-configuration and credential row asks at every level", () =>
      Effect.gen(function*() {
        const ids = [
          ...PUBLISH.map(([id]) => `publish.${id}`),
          ...GLOBAL_CONFIG.map(([id]) => `global-config.${id}`),
          ...SECRET_COMMANDS.map(([id]) => `secret.${id}`),
          ...REMOTE_CHANGES.map(([id]) => `remote-change.${id}`)
        ]
        assert.deepStrictEqual([...ids].sort(), Object.keys(EXAMPLES).sort())
        for (const [id, commands] of Object.entries(EXAMPLES)) {
          for (const command of commands) {
            for (const level of ["assist", "execute", "autonomous"] as const) {
              const d = yield* decide(command, level)
              assert.strictEqual(d.decision, "ask", `${id} at ${level}: ${command} (${d.citation.reason})`)
              assert.strictEqual(d.citation.ruleId, `universal.${id}`, command)
            }
          }
        }
      }))

    it.effect("their look-alikes that stay on the machine are routine at execute", () =>
      Effect.gen(function*() {
        for (const command of ROUTINE) {
          const d = yield* decide(command)
          assert.strictEqual(d.decision, "allow", `${command}: ${d.citation.reason}`)
        }
      }))

    it.effect("every developer tool is routine at execute, asks at assist, and its arguments are still read", () =>
      Effect.gen(function*() {
        for (const [name] of DEV_TOOLS) {
          // (goreleaser's bare form publishes: its local form is `build`)
          const routine = name === "goreleaser" ? "goreleaser build" : `${name} src`
          assert.strictEqual((yield* decide(routine)).decision, "allow", name)
          assert.strictEqual((yield* decide(routine, "assist")).decision, "ask", name)
          const hidden = yield* decide(`${name} 'git push -f origin main'`)
          assert.strictEqual(hidden.decision, "deny", `${name}: a force-push in its arguments`)
        }
      }))
  })
})
