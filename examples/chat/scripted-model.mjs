// The example's offline model: a scripted stand-in that streams a made-up answer word by word,
// so the chat runs with no model configured. It is not a language model. It speaks the AI SDK's
// model specification v3 (ai 6) or v2 (ai 5). A message containing "long" gets a long answer,
// slow enough to stop or reload in the middle of.

const SHORT =
  "Here is answer number {n} to what you said: “{text}”. It is scripted, but it is stored as a real answer would be.";
const LONG_WORDS = 60;

/** A scripted model; `delayMs` between words (default 30 ms, long answers 50 ms). */
export function scriptedModel({ spec = "v3", delayMs = 30 } = {}) {
  let answers = 0;
  return {
    specificationVersion: spec,
    provider: "scripted",
    modelId: "scripted-offline",
    supportedUrls: {},
    async doGenerate() {
      throw new Error("the scripted model only streams");
    },
    async doStream({ prompt, abortSignal }) {
      const text = lastUserText(prompt);
      answers++;
      const long = /\blong\b/i.test(text);
      const answer = long
        ? Array.from({ length: LONG_WORDS }, (_, i) => `word${i + 1}`).join(
            " ",
          ) + " END."
        : SHORT.replace("{n}", String(answers)).replace("{text}", text);
      const words = answer.split(" ");
      const pause = long ? Math.max(delayMs, 50) : delayMs;
      return {
        stream: new ReadableStream({
          async start(controller) {
            const stop = () => {
              try {
                controller.error(abortSignal.reason);
              } catch {
                // already closed
              }
            };
            abortSignal?.addEventListener("abort", stop);
            controller.enqueue({ type: "stream-start", warnings: [] });
            controller.enqueue({ type: "text-start", id: "t1" });
            for (const [index, word] of words.entries()) {
              if (abortSignal?.aborted) return;
              controller.enqueue({
                type: "text-delta",
                id: "t1",
                delta: index === 0 ? word : ` ${word}`,
              });
              await new Promise((resolve) => setTimeout(resolve, pause));
            }
            if (abortSignal?.aborted) return;
            controller.enqueue({ type: "text-end", id: "t1" });
            controller.enqueue(finishChunk(spec, words.length));
            abortSignal?.removeEventListener("abort", stop);
            controller.close();
          },
        }),
      };
    },
  };
}

// --- Internal helpers ---

function lastUserText(prompt) {
  const user = [...prompt].reverse().find((message) => message.role === "user");
  if (!user) return "";
  const content = Array.isArray(user.content) ? user.content : [];
  return content
    .filter((part) => part.type === "text")
    .map((part) => part.text)
    .join(" ");
}

function finishChunk(spec, words) {
  if (spec === "v2")
    return {
      type: "finish",
      finishReason: "stop",
      usage: { inputTokens: 10, outputTokens: words, totalTokens: 10 + words },
    };
  return {
    type: "finish",
    finishReason: { unified: "stop", raw: "stop" },
    usage: {
      inputTokens: {
        total: 10,
        noCache: 10,
        cacheRead: undefined,
        cacheWrite: undefined,
      },
      outputTokens: { total: words, text: words, reasoning: undefined },
    },
  };
}
