import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";

export default tseslint.config(
  {
    ignores: [
      "build/",
      "data/",
      "node_modules/",
      ".react-router/",
      "bench/results/",
      "bench/floor/build/",
      "coverage/",
      "test-results/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "@ant-design/icons",
              message:
                "Import the icon from app/components/antd-icons.ts (add it there): the package's index makes the build read all of its icons.",
            },
          ],
        },
      ],
    },
  },
  {
    // Client code: what it imports reaches the browser. Server modules only as types (erased in the build); route
    // modules, `*.server.ts` files and tests run on the server. The build refuses any server module that still
    // reaches the browser's bundle (vite.config.ts, serverStaysOnServer).
    files: ["app/**/*.{ts,tsx}", "common/**/*.{ts,tsx}"],
    ignores: ["app/routes/**", "app/root.tsx", "app/entry.server.tsx", "**/*.server.{ts,tsx}", "**/*.test.{ts,tsx}"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^(#server/|(\\.\\./)+server/)",
              allowTypeImports: true,
              message:
                "Client code may import server modules only as types (`import type`); put shared values in common/, or the code in a *.server.ts file.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["**/*.{js,mjs}"],
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        URL: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        fetch: "readonly",
        Buffer: "readonly",
        setInterval: "readonly",
        clearInterval: "readonly",
        AbortSignal: "readonly",
        Request: "readonly",
        ReadableStream: "readonly",
        TextEncoder: "readonly",
      },
    },
  },
);
