// Type-aware lint rules that catch what the type checker does not: promises nobody awaits or
// handles, promises passed where a plain value is expected, and type assertions that change
// nothing. Formatting is prettier's; everything else is left to `tsc --strict`.
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "node_modules/**",
      "reference/**",
      "docs/**",
      "bench/**",
      "scripts/**",
      "examples/**",
      "**/*.mjs",
      "**/*.js",
    ],
  },
  {
    files: ["src/**/*.ts", "test/**/*.ts"],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { "@typescript-eslint": tseslint.plugin },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/no-unnecessary-type-assertion": "error",
    },
  },
);
