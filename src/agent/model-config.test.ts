import { describe, expect, it } from "vitest";
import {
  MODEL_ENV,
  modelFromEnv,
  openAICompatibleModels,
  readModelEnv,
} from "./model-config.js";

describe("model configuration from the environment", () => {
  it("is null when nothing is configured", async () => {
    expect(readModelEnv({})).toBeNull();
    expect(await modelFromEnv({ ARBOR_API_KEY: "ignored alone" })).toBeNull();
    expect(readModelEnv({ ARBOR_BASE_URL: " ", ARBOR_MODEL: "" })).toBeNull();
  });

  it("reads the base URL, model, key and summary model", () => {
    expect(
      readModelEnv({
        ARBOR_BASE_URL: "http://localhost:11434/v1",
        ARBOR_MODEL: "llama3.2",
      }),
    ).toEqual({ baseURL: "http://localhost:11434/v1", model: "llama3.2" });
    expect(
      readModelEnv({
        [MODEL_ENV.baseURL]: "https://api.example.com/v1",
        [MODEL_ENV.model]: "big",
        [MODEL_ENV.apiKey]: "sk-test",
        [MODEL_ENV.summaryModel]: "small",
      }),
    ).toEqual({
      baseURL: "https://api.example.com/v1",
      model: "big",
      apiKey: "sk-test",
      summaryModel: "small",
    });
  });

  it("names the missing variable when only half is configured, and rejects a bad URL", () => {
    expect(() => readModelEnv({ ARBOR_MODEL: "llama3.2" })).toThrow(
      /Set ARBOR_BASE_URL/,
    );
    expect(() =>
      readModelEnv({ ARBOR_BASE_URL: "http://localhost:8080/v1" }),
    ).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    expect(() =>
      readModelEnv({ ARBOR_BASE_URL: "localhost:8080", ARBOR_MODEL: "m" }),
    ).toThrow(/http\(s\) URL/);
  });

  it("builds chat and summary models on the OpenAI-compatible provider", async () => {
    const models = await openAICompatibleModels({
      baseURL: "http://localhost:8000/v1",
      model: "qwen",
    });
    expect(models.settings.summaryModel).toBe("qwen");
    const chat = models.model as { modelId: string; provider: string };
    expect(chat.modelId).toBe("qwen");
    expect(chat.provider).toBe("openai-compatible.chat");
    const configured = await modelFromEnv({
      ARBOR_BASE_URL: "http://localhost:8000/v1",
      ARBOR_MODEL: "qwen",
      ARBOR_SUMMARY_MODEL: "qwen-small",
    });
    expect((configured!.summaryModel as { modelId: string }).modelId).toBe(
      "qwen-small",
    );
  });
});
