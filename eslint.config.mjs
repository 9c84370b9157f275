import * as effectEslint from "@effect/eslint-plugin"
import tsParser from "@typescript-eslint/parser"
import tsPlugin from "@typescript-eslint/eslint-plugin"

// Effect's house style: dprint formatting (2 spaces, 120 columns, no semicolons, double quotes,
// no trailing commas) plus type-only imports and Array<T> generics.
export default [
  { ignores: ["**/dist/**", "**/build/**", "**/node_modules/**", "**/.tsbuildinfo/**", "**/*.d.ts"] },
  ...effectEslint.configs.dprint.map((config) => ({ ...config, files: ["**/*.ts"] })),
  {
    files: ["packages/**/*.ts", "examples/**/*.ts", "scripts/**/*.ts"],
    languageOptions: { parser: tsParser, ecmaVersion: 2022, sourceType: "module" },
    plugins: { "@typescript-eslint": tsPlugin },
    rules: {
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/array-type": ["error", { default: "generic", readonly: "generic" }],
      "@effect/dprint": ["error", {
        config: {
          indentWidth: 2,
          lineWidth: 120,
          semiColons: "asi",
          quoteStyle: "alwaysDouble",
          trailingCommas: "never",
          operatorPosition: "maintain",
          "arrowFunction.useParentheses": "force"
        }
      }]
    }
  }
]
