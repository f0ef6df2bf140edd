// Countersign's page script: one WebSocket (docs/protocol.md), a few fetches of server-rendered
// fragments, no framework. Every piece of HTML comes from the server, already sanitised; the
// only text this script writes itself goes through textContent, so model output can never
// become markup here (streamed tokens are shown as plain text until the reply is done).

const STAGES = {
  thinking: "Thinking…",
  searching: "Searching the knowledge base…",
  querying: "Querying your data…",
  awaiting_approval: "Waiting for approval…",
  executing: "Carrying out the approved action…",
};
const ERRORS = {
  conversation_busy: "A reply is still being written. Send again when it finishes, or stop it.",
  rate_limited: "Too many messages at once — slow down a little.",
  too_long: "That message is too long.",
};

const $ = (selector, root = document) => root.querySelector(selector);
const chat = $("#chat");
const inbox = $("#inbox");
const csrf = (chat || inbox)?.dataset.csrf || "";

function uuid4() {
  // crypto.randomUUID exists only in secure contexts; plain http on a LAN host is not one.
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

async function fragment(url) {
  const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } });
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  const template = document.createElement("template");
  template.innerHTML = (await response.text()).trim();
  return template.content.firstElementChild;
}

// -- the connection -------------------------------------------------------------------------

const connection = {
  socket: null,
  retries: 0,
  queue: [],
  handlers: [],
  onOpen: [],
  indicator: $("[data-testid=connection]"),

  start() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/ws/chat/`);
    this.socket = socket;
    this.show("connecting", "Connecting…");
    socket.addEventListener("open", () => {
      this.retries = 0;
      this.show("connected", "Connected");
      this.onOpen.forEach((callback) => callback());
      this.queue.splice(0).forEach((frame) => socket.send(JSON.stringify(frame)));
    });
    socket.addEventListener("message", (message) => {
      let frame;
      try {
        frame = JSON.parse(message.data);
      } catch {
        return;
      }
      this.handlers.forEach((handler) => handler(frame));
    });
    socket.addEventListener("close", (event) => {
      if (event.code === 4401 || event.code === 4403) {
        this.show("offline", "Signed out — reload the page");
        return;
      }
      // Back off up to 10 s; on reopen, every page re-subscribes after what it has seen.
      const delay = Math.min(10000, 500 * 2 ** this.retries++) * (0.75 + Math.random() / 2);
      this.show("reconnecting", "Reconnecting…");
      setTimeout(() => this.start(), delay);
    });
  },

  send(frame) {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(frame));
    else this.queue.push(frame);
  },

  show(state, text) {
    if (!this.indicator) return;
    this.indicator.hidden = false;
    this.indicator.dataset.state = state;
    this.indicator.textContent = text;
  },
};

// -- approvals count in the navigation ------------------------------------------------------

const countBadge = $("[data-testid=inbox-count]");
let countTimer = null;
function refreshCount() {
  if (!countBadge) return;
  clearTimeout(countTimer);
  countTimer = setTimeout(async () => {
    const response = await fetch("/approvals/count/", { credentials: "same-origin" });
    if (!response.ok) return;
    const { pending } = await response.json();
    countBadge.textContent = String(pending);
    countBadge.hidden = pending === 0;
  }, 150);
}

// -- action cards: read the form back into arguments, decide over HTTP ------------------------

function readArguments(form) {
  const args = {};
  for (const control of form.querySelectorAll("[data-kind]")) {
    const { kind } = control.dataset;
    const value = control.value;
    if (kind === "note") continue;
    if (kind === "lines") args[control.name] = value.split("\n").map((s) => s.trim()).filter(Boolean);
    else if (kind === "nullable") args[control.name] = value.trim() === "" ? null : value;
    else if (kind === "json") {
      try {
        args[control.name] = JSON.parse(value);
      } catch {
        throw new Error(`${control.name}: not valid JSON`);
      }
    } else args[control.name] = value;
  }
  return args;
}

async function decide(form, decision) {
  const error = $(".form-error", form);
  error.hidden = true;
  const note = $("[data-kind=note]", form)?.value || "";
  let body;
  try {
    body = decision === "approve" ? { arguments: readArguments(form), note } : { note };
  } catch (problem) {
    error.textContent = problem.message;
    error.hidden = false;
    return;
  }
  form.querySelectorAll("button").forEach((button) => (button.disabled = true));
  const response = await fetch(`/api/actions/${form.dataset.action}/${decision}`, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrf, "Idempotency-Key": uuid4() },
    body: JSON.stringify(body),
  });
  if (!response.ok) {
    const payload = await response.json().catch(() => ({}));
    error.textContent = payload.error?.message || `The ${decision} failed (${response.status}).`;
    error.hidden = false;
    form.querySelectorAll("button").forEach((button) => (button.disabled = false));
    return;
  }
  await refreshCard(form.dataset.action);
  refreshCount();
}

async function refreshCard(actionId) {
  const existing = document.querySelector(`.card[data-action="${actionId}"]`);
  const inInbox = Boolean(existing?.closest("#inbox-list"));
  const card = await fragment(`/actions/${actionId}/card/${inInbox ? "?inbox=1" : ""}`);
  if (existing) existing.replaceWith(card);
  return card;
}

// The requester takes back their own pending action; approvers see the card turn "Withdrawn".
async function withdraw(button) {
  const card = button.closest(".card");
  const error = $(".withdraw-error", card);
  button.disabled = true;
  const response = await fetch(`/api/actions/${button.dataset.withdraw}/withdraw`, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrf, "Idempotency-Key": uuid4() },
    body: "{}",
  });
  if (!response.ok) {
    const payload = await response.json().catch(() => ({}));
    error.textContent = payload.error?.message || `The withdrawal failed (${response.status}).`;
    error.hidden = false;
    button.disabled = false;
    return;
  }
  await refreshCard(button.dataset.withdraw);
  refreshCount();
}

document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-withdraw]");
  if (button) withdraw(button);
});

document.addEventListener("submit", (event) => {
  const form = event.target.closest("form.decide");
  if (!form) return;
  event.preventDefault();
  decide(form, event.submitter?.value === "reject" ? "reject" : "approve");
});

// -- citations open their source passage ----------------------------------------------------

document.addEventListener("click", (event) => {
  const chip = event.target.closest("button.chip");
  if (!chip) return;
  const dialog = $("#source-dialog");
  const body = $(".source-body", dialog);
  body.replaceChildren($("template.source", chip.parentElement).content.cloneNode(true));
  dialog.showModal();
});

// -- the chat page ----------------------------------------------------------------------------

function chatPage() {
  const thread = $("#thread");
  const statusLine = $("#status-line");
  const composer = $("#composer");
  const text = $("#composer-text");
  const stopButton = $("#stop");
  const composerError = $("#composer-error");
  let conversation = chat.dataset.conversation || null;
  let seen = Number(chat.dataset.after || 0);

  const scrollDown = () => thread.scrollTo({ top: thread.scrollHeight });
  const setStatus = (words) => {
    statusLine.textContent = words || "";
    statusLine.hidden = !words;
  };
  const setRunning = (running) => {
    if (stopButton) stopButton.hidden = !running;
  };
  const showError = (words) => {
    if (!composerError) return;
    composerError.textContent = words || "";
    composerError.hidden = !words;
  };

  // A new conversation goes on top of the "Today" group (made when today had none yet).
  function addToHistory(uuid, title) {
    const groups = $("[data-testid=history]");
    if (!groups) return;
    groups.querySelector(".empty")?.remove();
    groups.querySelectorAll("[aria-current]").forEach((link) => link.removeAttribute("aria-current"));
    let list = groups.querySelector("h2.history-group:first-child + ul");
    if (groups.querySelector("h2.history-group:first-child")?.textContent !== "Today") {
      const heading = document.createElement("h2");
      heading.className = "history-group";
      heading.textContent = "Today";
      list = document.createElement("ul");
      groups.prepend(heading, list);
    }
    const item = document.createElement("li");
    item.dataset.conversation = uuid;
    const link = document.createElement("a");
    link.href = `/c/${uuid}/`;
    link.textContent = title.slice(0, 80);
    link.setAttribute("aria-current", "page");
    item.append(link);
    list.prepend(item);
  }

  function append(node) {
    $("#empty-thread")?.remove();
    thread.append(node);
    scrollDown();
  }

  function streamingBubble() {
    let bubble = $(".msg.streaming", thread);
    if (!bubble) {
      bubble = document.createElement("article");
      bubble.className = "msg msg-assistant streaming";
      bubble.dataset.testid = "message-streaming";
      const body = document.createElement("div");
      body.className = "msg-body plain";
      bubble.append(body);
      append(bubble);
    }
    return $(".msg-body", bubble);
  }

  async function place(node, key, value) {
    const existing = thread.querySelector(`[data-${key}="${value}"]`);
    if (existing) existing.replaceWith(node);
    else append(node);
  }

  async function onEvent(frame) {
    if (frame.conversation !== conversation || typeof frame.seq !== "number") return;
    if (frame.seq <= seen) return; // a replay of something already shown
    seen = frame.seq;
    switch (frame.type) {
      case "status":
        setStatus(STAGES[frame.stage] || frame.stage);
        setRunning(frame.stage !== "awaiting_approval");
        break;
      case "token":
        streamingBubble().textContent += frame.content;
        setStatus("");
        setRunning(true);
        scrollDown();
        break;
      case "pending": {
        const bubble = $(".msg.streaming", thread);
        if (bubble && !bubble.textContent.trim()) bubble.remove();
        setStatus(STAGES.awaiting_approval);
        setRunning(false);
        await place(await fragment(`/actions/${frame.action.id}/card/`), "action", frame.action.id);
        break;
      }
      case "action":
        if (thread.querySelector(`[data-action="${frame.action.id}"]`)) await refreshCard(frame.action.id);
        if (["rejected", "approved", "withdrawn"].includes(frame.action.status)) setStatus("");
        break;
      case "done": {
        const node = await fragment(`/c/${conversation}/m/${frame.message}/`);
        thread.querySelectorAll(".msg.streaming").forEach((bubble) => bubble.remove());
        await place(node, "message", frame.message);
        setStatus("");
        setRunning(false);
        break;
      }
      case "error":
        thread.querySelectorAll(".msg.streaming").forEach((bubble) => bubble.classList.remove("streaming"));
        setStatus("");
        setRunning(false);
        showError(frame.message);
        break;
    }
  }

  // Events are handled one after another (some fetch a fragment), so the thread keeps their order.
  let handled = Promise.resolve();
  connection.handlers.push((frame) => {
    if (frame.type === "pending" || frame.type === "action") refreshCount();
    if (frame.type === "accepted") {
      const mine = thread.querySelector(`[data-client-id="${frame.client_id}"]`);
      if (mine) mine.dataset.message = frame.message;
      if (!conversation) {
        conversation = frame.conversation;
        chat.dataset.conversation = conversation;
        history.replaceState(null, "", `/c/${conversation}/`);
        addToHistory(conversation, mine?.textContent || "New conversation");
      }
      return;
    }
    if (frame.type === "error" && frame.conversation === undefined) {
      showError(ERRORS[frame.code] || frame.message);
      thread.querySelector("[data-client-id]:not([data-message])")?.classList.add("msg-failed");
      setRunning(false);
      return;
    }
    handled = handled.then(() => onEvent(frame)).catch((problem) => console.error(problem));
  });
  connection.onOpen.push(() => {
    if (conversation) connection.send({ type: "chat.subscribe", conversation, after: seen });
  });

  conversationControls(() => conversation);
  if (!composer) return;
  const counter = characterCounter(text, showError);
  composer.addEventListener("submit", (event) => {
    event.preventDefault();
    const words = text.value.trim();
    if (!words) return;
    if (counter.over()) {
      counter.warn();
      text.focus(); // so trimming can start at once
      return;
    }
    showError("");
    const clientId = uuid4();
    const bubble = document.createElement("article");
    bubble.className = "msg msg-user";
    bubble.dataset.clientId = clientId;
    bubble.dataset.testid = "message-user";
    const body = document.createElement("div");
    body.className = "msg-body plain";
    body.textContent = words;
    bubble.append(body);
    append(bubble);
    connection.send({ type: "chat.send", conversation, text: words, client_id: clientId });
    text.value = "";
    counter.update();
    setStatus(STAGES.thinking);
    setRunning(true);
  });
  text.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      composer.requestSubmit();
    }
  });
  stopButton?.addEventListener("click", () => {
    if (conversation) connection.send({ type: "chat.cancel", conversation });
  });
  // At phone width the conversation list starts folded, so the thread is what one sees first.
  if (matchMedia("(max-width: 720px)").matches) $(".history-toggle")?.removeAttribute("open");
  scrollDown();
}

// -- the message box's character counter ------------------------------------------------------

// The server refuses a message over CHAT_MAX_MESSAGE_CHARS, so the page says so before sending.
// Nothing is ever cut: a paste that goes over stays whole and the user trims it themselves.
function characterCounter(text, showError) {
  const max = Number(text.dataset.max || 4000);
  const display = $("#char-count");
  const length = () => text.value.trim().length;
  const over = () => length() > max;
  const warn = () =>
    showError(`Your message is ${length().toLocaleString()} characters; the most is ${max.toLocaleString()}. ` +
      `Shorten it by ${(length() - max).toLocaleString()} characters to send it.`);
  let warned = false;
  function update() {
    const tooLong = over();
    display.textContent = `${length().toLocaleString()} / ${max.toLocaleString()}`;
    display.classList.toggle("over", tooLong);
    text.setAttribute("aria-invalid", String(tooLong));
    if (tooLong) warn();
    else if (warned) showError(""); // only clear our own warning, not a server error
    warned = tooLong;
  }
  text.addEventListener("input", update);
  update();
  return { over, warn, update };
}

// -- rename and delete the open conversation -----------------------------------------------------

async function conversationRequest(id, method, body) {
  const response = await fetch(`/api/conversations/${id}/`, {
    method,
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.ok) return null;
  const payload = await response.json().catch(() => ({}));
  return payload.error?.message || `That did not work (${response.status}).`;
}

function conversationControls(current) {
  const form = $("#rename-form");
  if (!form) return;
  const title = $("#conversation-title");
  const input = $("#rename-title");
  const error = $("#conversation-error");
  const say = (words) => {
    error.textContent = words || "";
    error.hidden = !words;
  };
  const editing = (on) => {
    form.hidden = !on;
    title.hidden = on;
    $("#rename").hidden = on;
    $("#delete").hidden = on;
    if (on) input.focus();
    else say("");
  };
  $("#rename").addEventListener("click", () => editing(true));
  $("#rename-cancel").addEventListener("click", () => editing(false));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const wanted = input.value;
    const problem = await conversationRequest(current(), "PATCH", { title: wanted });
    if (problem) return say(problem);
    const shown = wanted.split(/\s+/).filter(Boolean).join(" ");
    title.textContent = shown;
    const link = $(`[data-testid=history] li[data-conversation="${current()}"] a`);
    if (link) link.textContent = shown;
    document.title = `${shown} · ${document.title.split(" · ").pop()}`;
    editing(false);
  });
  $("#delete").addEventListener("click", async () => {
    if (!confirm("Delete this conversation? It leaves your list and cannot be opened again.")) return;
    const problem = await conversationRequest(current(), "DELETE");
    if (problem) return say(problem);
    location.assign("/");
  });
}

// -- the approvals inbox ------------------------------------------------------------------------

function inboxPage() {
  const list = $("#inbox-list");
  const empty = $("#empty-inbox");
  const sync = () => (empty.hidden = list.children.length > 0);
  let handled = Promise.resolve();
  connection.handlers.push((frame) => {
    if (frame.type !== "pending" && frame.type !== "action") return;
    handled = handled.then(() => onFeed(frame)).catch((problem) => console.error(problem));
  });
  async function onFeed(frame) {
    refreshCount();
    const id = frame.action.id;
    const existing = list.querySelector(`[data-action="${id}"]`);
    if (frame.type === "pending" && !existing) {
      list.prepend(await fragment(`/actions/${id}/card/?inbox=1`));
    } else if (frame.type === "action" && existing) {
      const card = await refreshCard(id);
      setTimeout(() => {
        card.remove();
        sync();
      }, 4000); // long enough to read the outcome
    }
    sync();
  }
  // After a dropped connection the feed may have missed arrivals: refetch the whole list.
  let first = true;
  connection.onOpen.push(async () => {
    if (first) return void (first = false);
    const response = await fetch(location.href, { credentials: "same-origin" });
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    list.replaceChildren(...page.querySelector("#inbox-list").children);
    sync();
    refreshCount();
  });
}

// For diagnostics in the browser console (and the browser tests): the live connection.
globalThis.countersign = { connection };

if (chat) chatPage();
if (inbox) inboxPage();
if (chat || inbox) connection.start();
