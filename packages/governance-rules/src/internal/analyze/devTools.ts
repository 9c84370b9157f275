/**
 * The everyday tools of a developer's workspace that the gate knows by name (issue 32): linters,
 * formatters, test runners, coverage tools, build systems, code generators, doc generators and
 * read-only inspectors. Each is classed like the rows of `programs.ts`: it reads the workspace,
 * writes inside it, or runs the project's own code there — routine work at `execute`, never at
 * `assist`. What one of them does that leaves the machine (publishing, deploying) is a universal
 * ask in `Autonomy` (`universal.publish.*`), decided from its subcommand, so knowing the tool never
 * lets its publishing through. Their arguments are still read speculatively (a command or a
 * metadata address hidden in them can only make the decision stricter).
 *
 * @internal
 */

/** What a tool does with the workspace. @internal */
export type DevToolClass =
  /** Reads files and prints (linters that do not fix, inspectors, doc viewers). */
  | "reads"
  /** Writes inside the workspace (formatters, builds, code and doc generators). */
  | "writes"
  /** Runs the project's code (test runners, coverage, task runners). */
  | "runs"

const rows = (cls: DevToolClass, names: string): Array<readonly [string, DevToolClass]> =>
  names.trim().split(/\s+/).map((name) => [name, cls] as const)

/** @internal */
export const DEV_TOOLS: ReadonlyMap<string, DevToolClass> = new Map([
  // linters, type checkers, analysers (report only unless told to fix)
  ...rows(
    "reads",
    `golangci-lint staticcheck revive golint govet errcheck ineffassign shellcheck hadolint yamllint
     markdownlint markdownlint-cli2 stylelint oxlint xo standard tslint depcruise dependency-cruiser knip
     madge publint attw are-the-types-wrong cppcheck cpplint clang-tidy iwyu include-what-you-use rubocop
     ktlint detekt swiftlint actionlint codespell typos editorconfig-checker commitlint pyright
     basedpyright pydocstyle pycodestyle pyflakes bandit vulture
     cargo-clippy clippy-driver cargo-machete sqlfluff htmlhint jsonlint
     lsof ss netstat pgrep pidof nm objdump readelf size tokei cloc scc`
  ),
  // formatters, builds, generators (write inside the workspace)
  ...rows(
    "writes",
    `gofumpt goimports shfmt clang-format taplo yapf autopep8 docformatter autoflake pyupgrade ktfmt
     swiftformat buf protoc flatc thrift sqlc swag wire mockgen stringer easyjson ent oapi-codegen
     autoreconf autoconf automake aclocal autoheader libtoolize pkg-config strip objcopy
     ranlib mold lld bazel bazelisk buck2 scons xmake premake5 qmake ant sbt mill kotlinc scalac zig nim
     dune stack cabal ghc elm wasm-pack wasm-opt wasm-bindgen tsdown unbuild microbundle rspack rsbuild
     parcel vue-tsc svelte-check svelte-kit astro next nuxt nuxi remix storybook api-extractor typedoc
     jsdoc sphinx-build sphinx-apidoc sphinx-autobuild mkdocs doxygen javadoc rustdoc pdoc mdbook
     hugo jekyll asciidoctor pandoc promu goreleaser dos2unix unix2dos iconv envsubst lcov genhtml
     gcov gcovr llvm-cov llvm-profdata grcov cargo-llvm-cov cargo-tarpaulin`
  ),
  // test runners, coverage, task runners: they run the project's code
  ...rows(
    "runs",
    `coverage nyc c8 istanbul ctest richgo gotestsum ava tap karma playwright cypress phpunit pest rspec
     bats just task invoke doit pretty-quick lint-staged esr esno jiti vite-node 
     behave robot`
  )
])

/** @internal */
export const devToolClass = (name: string): DevToolClass | undefined => DEV_TOOLS.get(name)
