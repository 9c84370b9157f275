/**
 * Shell intents that leave the machine or the workspace whatever the boundary: publishing and
 * deploying, writing configuration every later command reads (`git config --global`, `npm config
 * set`), and commands that print or hand over credentials. Data for `Autonomy`'s universal layer
 * (asks at every level, so no level or sandbox loosens them; ADR 0215).
 *
 * @internal
 */

/** Publishing and deploying: `[id, pattern]` (`universal.publish.<id>`). @internal */
export const PUBLISH: ReadonlyArray<readonly [string, string]> = [
  ["npm", "npm publish *"],
  ["pnpm", "pnpm publish *"],
  ["yarn", "yarn publish *"],
  ["yarn-npm", "yarn npm publish *"],
  ["bun", "bun publish *"],
  ["docker", "docker push *"],
  ["docker-image", "docker image push *"],
  ["podman", "podman push *"],
  ["buildx", "docker buildx build *--push*"],
  ["buildx-bake", "docker buildx bake *--push*"],
  ["docker-build-push", "docker build *--push*"],
  ["gh-release", "gh release {create,upload,edit,delete,delete-asset} *"],
  ["cargo", "cargo publish *"],
  ["twine", "twine upload *"],
  ["gem", "gem push *"],
  ["poetry", "poetry publish *"],
  ["uv", "uv publish *"],
  ["git-push", "git push *"],
  ["git-lfs", "git lfs push *"],
  ["lerna", "lerna publish *"],
  ["changeset", "changeset publish *"],
  ["docker-compose", "docker compose push *"],
  ["docker-compose-v1", "docker-compose push *"],
  ["docker-manifest", "docker manifest push *"],
  ["podman-manifest", "podman manifest push *"],
  ["buildx-registry", "docker buildx {build,bake} *type=registry*"],
  ["vsce", "{vsce,ovsx} publish *"],
  // build tools publish through tasks anywhere on the line (`./gradlew clean publish`,
  // `publishToMavenCentral`, `gitPublishPush`, `sbt +publishSigned`, `mvn deploy`)
  ["gradle", "{gradle,gradlew,./gradlew,*/gradlew} *{publish,Publish}*"],
  ["maven", "{mvn,mvnw,./mvnw,*/mvnw} *deploy*"],
  ["sbt", "sbt *{publish,Publish,release}*"],
  ["goreleaser", "goreleaser *"],
  ["promu", "promu release *"],
  ["deploy", "{firebase,netlify,wrangler,fly,flyctl,serverless,sls,cdk,amplify,surge,vercel,hugo} *deploy*"],
  ["vercel", "vercel *--prod*"],
  ["wrangler", "wrangler {publish,secret,kv,r2,d1} *"],
  ["mkdocs", "mkdocs gh-deploy *"],
  ["ghp-import", "ghp-import *-p*"],
  ["gh-pages", "gh-pages *"],
  ["npm-registry", "{npm,pnpm,yarn} {unpublish,deprecate,dist-tag,owner,access,token,team,org,hook} *"],
  ["helm", "helm push *"],
  ["python-publishers", "{flit,hatch,pdm} publish *"],
  ["nuget", "dotnet nuget push *"]
]

/** Spellings of a publishing command that stay on the machine. @internal */
export const PUBLISH_EXCEPT: Partial<Record<string, ReadonlyArray<string>>> = {
  "git-push": ["git push --dry-run *"],
  // a snapshot, a build or a config check stays on the machine
  "goreleaser": [
    "goreleaser *--snapshot*",
    "goreleaser {build,check,healthcheck,init,jsonschema,completion,man,--version,-v,--help,-h} *"
  ]
}

/**
 * Remote state destroyed or changed where no level's "network allowed" should reach: `[id,
 * pattern]` (`universal.remote-change.<id>`).
 *
 * @internal
 */
export const REMOTE_CHANGES: ReadonlyArray<readonly [string, string]> = [
  ["gh-delete", "gh {repo,release,secret,variable,ssh-key,gpg-key,label,run,cache} delete *"],
  ["gh-api-write", "gh api *{-X,--method}{ ,=}{DELETE,PUT,PATCH,POST,delete,put,patch,post}*"],
  [
    "kubectl",
    "kubectl *{apply,create,delete,edit,patch,replace,scale,rollout,exec,cp,drain,cordon,label,annotate,set,run,expose,autoscale,debug,attach} *"
  ],
  ["helm", "helm {install,upgrade,uninstall,delete,rollback} *"],
  ["terraform", "{terraform,tofu,pulumi} {apply,destroy,import,up,taint,untaint,state} *"],
  ["docker-context", "docker *--context{ ,=}* *"],
  ["docker-prune", "docker {system,volume,image,container,network,builder} prune *"]
]

/**
 * Configuration outside the workspace: `[id, pattern, except]` (`universal.global-config.<id>`).
 * Reading it stays routine.
 *
 * @internal
 */
export const GLOBAL_CONFIG: ReadonlyArray<readonly [string, string, ReadonlyArray<string>]> = [
  ["git", "git config *--{global,system}*", ["git config *--{get,get-all,get-regexp,list,show-origin,show-scope}*"]],
  ["npm", "{npm,pnpm,yarn,bun} config {set,delete,rm,edit} *", []],
  ["npm-set", "{npm,pnpm} set *", []],
  ["pip", "{pip,pip3} config {set,unset,edit} *", []],
  ["poetry", "poetry config *", ["poetry config *--{list,local}*"]],
  ["cargo-login", "cargo login *", []],
  // a global install puts programs on every later command's PATH (anchored: `-g` is a word)
  ["npm-global", "{npm,pnpm,bun} {install,i,add,uninstall,un,remove,rm,update,up,link,ln} {,* }-g{, *}", []],
  [
    "npm-global-long",
    "{npm,pnpm,bun} {install,i,add,uninstall,un,remove,rm,update,up,link,ln} *--{global,location=global}*",
    []
  ],
  ["yarn-global", "yarn global {add,remove,upgrade} *", []]
]

/**
 * Commands that print credentials or feed them to a login: `[id, pattern, note]`
 * (`universal.secret.<id>`).
 *
 * @internal
 */
export const SECRET_COMMANDS: ReadonlyArray<readonly [string, string, string]> = [
  [
    "registry-login",
    "{docker,podman,buildah,skopeo,helm,oras,crane,npm,pnpm,yarn,heroku,vercel,netlify,firebase,wrangler} login *",
    "hands a credential to a login"
  ],
  ["npm-adduser", "npm adduser *", "hands a credential to a login"],
  ["cli-auth", "{gh,glab} auth {login,token,status --show-token,refresh} *", "prints or stores an access token"],
  ["gcloud-token", "gcloud auth *{print-access-token,print-identity-token}*", "prints an access token"],
  ["az-token", "az account get-access-token *", "prints an access token"],
  [
    "aws-token",
    "aws {sts get-session-token,configure get,configure export-credentials,ecr get-login-password} *",
    "prints a credential"
  ],
  ["kubectl-raw", "kubectl config view *--raw*", "prints cluster credentials"],
  ["kubectl-secret", "kubectl get {secret,secrets}*", "prints cluster secrets"],
  ["terraform-output", "{terraform,tofu} output *", "prints outputs that hold secrets"],
  ["git-credential", "git credential{,-store,-cache} *", "prints stored git credentials"]
]
