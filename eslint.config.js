// Lint of the browser client (docs/web.md, "The browser client"): native ES modules for the
// browser, checked as they are served (no build step).
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/", "build/", "**/*.d.ts"] },
  js.configs.recommended,
  {
    files: ["lordsofwar/web/static/js/**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.browser },
    },
    rules: {
      eqeqeq: ["error", "always", { null: "ignore" }],
      "no-unused-vars": ["error", { args: "after-used", argsIgnorePattern: "^_$", caughtErrors: "none" }],
      "no-implicit-globals": "error",
      "no-var": "error",
      "prefer-const": "error",
      "no-eval": "error",
      "no-implied-eval": "error",
      "no-new-func": "error",
      "no-script-url": "error",
      "no-restricted-properties": ["error",
        { object: "document", property: "write", message: "writes markup the policy cannot check" }],
    },
  },
  {
    files: ["eslint.config.js"],
    languageOptions: { sourceType: "module", globals: { ...globals.node } },
  },
];
