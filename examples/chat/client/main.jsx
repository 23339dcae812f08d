// The chat page: useChat from @ai-sdk/react over Arbor's chat routes, with the branch switcher
// from arbor-memory/ai-sdk/react. The server keeps every branch; this page only shows one.
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport } from "ai";
import { useChatBranches } from "arbor-memory/ai-sdk/react";
import { useEffect, useState } from "react";
import { createRoot } from "react-dom/client";

function App() {
  const chatId = decodeURIComponent(location.pathname.split("/")[2] ?? "");
  const [view, setView] = useState(null);
  useEffect(() => {
    fetch(`/api/chat/${encodeURIComponent(chatId)}`)
      .then((response) => response.json())
      .then(setView);
  }, [chatId]);
  if (!view) return <p>Loading…</p>;
  return <Chat view={view} />;
}

// Only the new message goes to the server: it keeps the history itself.
const transport = new DefaultChatTransport({
  api: "/api/chat",
  prepareSendMessagesRequest: ({ id, messages, trigger, messageId }) => ({
    body: { id, message: messages.at(-1), trigger, messageId },
  }),
});

function Chat({ view }) {
  const chat = useChat({
    id: view.id,
    messages: view.messages,
    transport,
    // A reload mid-answer picks the answer up where it is (GET /api/chat/:id/stream).
    resume: true,
  });
  const branches = useChatBranches({ chat, initial: view });
  const [input, setInput] = useState("");
  const [editing, setEditing] = useState(null);
  const answering = chat.status === "submitted" || chat.status === "streaming";

  const submit = (event) => {
    event.preventDefault();
    if (!input.trim()) return;
    if (editing) chat.sendMessage({ text: input, messageId: editing });
    else chat.sendMessage({ text: input });
    setInput("");
    setEditing(null);
  };

  return (
    <main data-status={chat.status} data-busy={String(branches.busy)}>
      <h1>Arbor chat</h1>
      {chat.messages.map((message) => {
        const at = branches.branchOf(message.id);
        const partial = message.metadata?.partial === true;
        return (
          <div
            key={message.id}
            className={`message ${message.role}${partial ? " partial" : ""}`}
            data-testid={`message-${message.role}`}
            data-partial={String(partial)}
          >
            <div className="text">
              {message.parts
                .filter((part) => part.type === "text")
                .map((part) => part.text)
                .join("")}
            </div>
            <div className="tools">
              {at && (
                <span className="switcher" data-testid="switcher">
                  <button
                    disabled={!at.hasPrevious || answering}
                    onClick={() => branches.previous(message.id)}
                    aria-label="Previous branch"
                  >
                    ←
                  </button>
                  <span data-testid="position">
                    {at.position}/{at.count}
                  </span>
                  <button
                    disabled={!at.hasNext || answering}
                    onClick={() => branches.next(message.id)}
                    aria-label="Next branch"
                  >
                    →
                  </button>
                </span>
              )}
              {message.role === "user" && !answering && (
                <button
                  onClick={() => {
                    setEditing(message.id);
                    setInput(
                      message.parts
                        .filter((part) => part.type === "text")
                        .map((part) => part.text)
                        .join(""),
                    );
                  }}
                >
                  Edit
                </button>
              )}
              {message.role === "assistant" && !answering && (
                <button
                  onClick={() => chat.regenerate({ messageId: message.id })}
                >
                  Regenerate
                </button>
              )}
              {partial && <span>stopped</span>}
            </div>
          </div>
        );
      })}
      <form onSubmit={submit}>
        <input
          aria-label="Message"
          value={input}
          placeholder={editing ? "Edit your message" : "Say something"}
          onChange={(event) => setInput(event.target.value)}
        />
        {answering ? (
          <button type="button" onClick={() => branches.stop()}>
            Stop
          </button>
        ) : (
          <button type="submit">{editing ? "Save" : "Send"}</button>
        )}
      </form>
      {chat.error && <p role="alert">{String(chat.error.message)}</p>}
    </main>
  );
}

createRoot(document.getElementById("root")).render(<App />);
