// Type-aware lint. `src/` (the shipped `src/testing` included) runs typescript-eslint's
// `strictTypeChecked`, less the rules listed below with the reason each is off; `test/` keeps
// the three rules that catch what the type checker does not: promises nobody awaits or handles,
// promises passed where a plain value is expected, and type assertions that change nothing.
// Formatting is prettier's. `projectService` types each file with its nearest tsconfig.json, so
// `src/studio/app` gets its DOM one.
import tseslint from "typescript-eslint";

const parserOptions = {
  projectService: true,
  tsconfigRootDir: import.meta.dirname,
};

// An assertion that lies to the checker hides the very mistakes this lint is for. `as never`
// fits anything and `as unknown as T` turns anything into anything: fix the types instead
// (a generic, an overload, a type guard, a narrower interface).
const bannedAssertions = [
  {
    selector: "TSAsExpression > TSNeverKeyword.typeAnnotation",
    message:
      "`as never` silences the type checker: fix the types (generic, overload, type guard, narrower interface).",
  },
  {
    selector: "TSTypeAssertion > TSNeverKeyword.typeAnnotation",
    message:
      "`<never>` silences the type checker: fix the types (generic, overload, type guard, narrower interface).",
  },
  {
    selector:
      "TSAsExpression[expression.type='TSAsExpression'][expression.typeAnnotation.type=/^TS(Unknown|Any)Keyword$/]",
    message:
      "`as unknown as T` turns anything into anything: fix the types (generic, overload, type guard, narrower interface).",
  },
];

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
    files: ["src/**/*.ts"],
    extends: [tseslint.configs.strictTypeChecked],
    languageOptions: { parserOptions },
    rules: {
      "no-restricted-syntax": ["error", ...bannedAssertions],
      // Statements such as sql`INSERT …` on a Durable Object's tagged-template store are calls.
      "@typescript-eslint/no-unused-expressions": [
        "error",
        { allowTaggedTemplates: true },
      ],
      // An `async` method with no `await` implements a Promise-returning contract: it turns a
      // throw into a rejection, which dropping `async` would change.
      "@typescript-eslint/require-await": "off",
      // `noUncheckedIndexedAccess` is on, so `!` after a checked index or a Map lookup just
      // guarded by `has` is routine; the checker already made the author think about it.
      "@typescript-eslint/no-non-null-assertion": "off",
      // The public API checks its arguments at runtime for JavaScript callers (`typeof x !==
      // "object"` on a typed parameter), and state read again after an `await` may have
      // changed: most of what this rule reports here is deliberate.
      "@typescript-eslint/no-unnecessary-condition": "off",
      // `Number(row.n)` on a driver value typed `number` guards rows that come back as bigint or
      // string; the conversion is the point.
      "@typescript-eslint/no-unnecessary-type-conversion": "off",
      // Like no-unnecessary-condition: `process.stdin.isTTY === true` and driver booleans are
      // typed `boolean` but may be `undefined` or another value at runtime.
      "@typescript-eslint/no-unnecessary-boolean-literal-compare": "off",
      // `_`-prefixed names are deliberately unused (a rest pattern's left-out keys, a parameter a
      // signature requires), as `tsc --noUnusedLocals` already treats them.
      "@typescript-eslint/no-unused-vars": [
        "error",
        {
          argsIgnorePattern: "^_",
          varsIgnorePattern: "^_",
          ignoreRestSiblings: true,
        },
      ],
      // Re-throwing or rejecting with what a `catch` caught passes it on unchanged.
      "@typescript-eslint/prefer-promise-reject-errors": [
        "error",
        { allowThrowingUnknown: true },
      ],
      // `boolean | void` is the seed contract's `appendMessage` result, and a handler may return
      // what a void-returning call returns beside a value of its own.
      "@typescript-eslint/no-invalid-void-type": "off",
      // Style: `() => void f()` and `return f()` in a void arrow read fine.
      "@typescript-eslint/no-confusing-void-expression": "off",
      // Numbers and booleans in template literals read fine; objects and `any` still do not.
      "@typescript-eslint/restrict-template-expressions": [
        "error",
        { allowNumber: true, allowBoolean: true, allowNullish: true },
      ],
    },
  },
  {
    files: ["test/**/*.ts"],
    languageOptions: { parser: tseslint.parser, parserOptions },
    plugins: { "@typescript-eslint": tseslint.plugin },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/no-unnecessary-type-assertion": "error",
    },
  },
);
