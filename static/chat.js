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
      if (event.code === 4401 || event.code === 4403 || event.code === 4404) {
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
    const response = await fetch("/approvals/count/", { credentials: "same-origin" }).catch(() => null);
    if (!response?.ok) return;
    const { pending } = await response.json();
    countBadge.textContent = String(pending);
    countBadge.hidden = pending === 0;
  }, 150);
}

// -- requests that survive the network ----------------------------------------------------------

// A decision goes over HTTP, so it works while the WebSocket reconnects. When no answer comes
// (fetch throws a TypeError: the connection dropped, the server is restarting) or the answer is
// a 5xx, the request may or may not have reached the server: the page says so and offers Retry,
// which resends the *same* Idempotency-Key, so the server answers a request it already did with
// its first answer and nothing is ever decided twice (docs/web.md, "When the network drops").
const NO_ANSWER = "No answer from the server — the network may be down. Nothing is lost:";

async function postJson(url, body, key, method = "POST") {
  const headers = { "Content-Type": "application/json", "X-CSRFToken": csrf };
  if (key) headers["Idempotency-Key"] = key;
  try {
    const response = await fetch(url, {
      method,
      credentials: "same-origin",
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const payload = await response.json().catch(() => ({}));
    return { ok: response.ok, status: response.status, payload, retry: response.status >= 500 };
  } catch (problem) {
    if (!(problem instanceof TypeError)) throw problem;
    return { ok: false, status: 0, payload: {}, retry: true };
  }
}

// Puts ``words`` in a form-error line, with a Retry button when ``again`` is given.
function sayProblem(line, words, again) {
  line.replaceChildren(words);
  if (again) {
    const retry = document.createElement("button");
    retry.type = "button";
    retry.className = "retry";
    retry.dataset.testid = "retry";
    retry.textContent = "Retry";
    retry.addEventListener("click", () => {
      line.hidden = true;
      again();
    });
    line.append(" ", retry);
  }
  line.hidden = false;
}

// One request from one card: ``buttons`` disabled and ``pressed`` saying ``busy`` ("Approving…")
// while it runs; then ``done`` (a success, or an expiry the refreshed card explains), or every
// button back in use with the problem said, and a Retry with the same key when no answer came.
async function cardRequest(request) {
  const { url, body, method, buttons, pressed, busy, error, failed, done } = request;
  const key = (request.key ||= uuid4());
  error.hidden = true;
  const words = pressed?.textContent;
  buttons.forEach((button) => (button.disabled = true));
  if (pressed) pressed.textContent = busy;
  let result;
  try {
    result = await postJson(url, body, key, method);
  } finally {
    if (pressed) pressed.textContent = words;
  }
  if (result.ok || result.payload.error?.code === "expired") {
    try {
      return await done();
    } catch {
      // Decided; only the fresh card did not come. The feed brings it once the network is back.
      sayProblem(error, "Done, but the card could not be refreshed: reload the page to see it.");
      return;
    }
  }
  buttons.forEach((button) => (button.disabled = false));
  if (result.retry) {
    const words = result.status ? `${failed} (${result.status}). Nothing is lost:` : NO_ANSWER;
    sayProblem(error, `${words} try again.`, () => cardRequest(request));
    return;
  }
  sayProblem(error, result.payload.error?.message || `${failed} (${result.status}).`);
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

const BUSY = { approve: "Approving…", reject: "Rejecting…", confirm: "Confirming…", decline: "Declining…" };

async function decide(form, decision, pressed) {
  const error = $(".form-error", form);
  const note = $("[data-kind=note]", form)?.value || "";
  let body;
  try {
    body = decision === "approve" ? { arguments: readArguments(form), note } : { note };
  } catch (problem) {
    sayProblem(error, problem.message);
    return;
  }
  await cardRequest({
    url: `/api/actions/${form.dataset.action}/${decision}`,
    body,
    buttons: [...form.querySelectorAll("button")],
    pressed,
    busy: BUSY[decision],
    error,
    failed: `The ${decision} failed`,
    done: async () => {
      await refreshCard(form.dataset.action);
      refreshCount();
    },
  });
}

async function refreshCard(actionId) {
  const existing = document.querySelector(`.card[data-action="${actionId}"]`);
  const inInbox = Boolean(existing?.closest("#inbox"));
  // An inbox card comes back as the reader had it: unfolded or one line, with its bulk result.
  const open = existing?.querySelector("details.unfold")?.open ? "&open=1" : "";
  const card = await fragment(`/actions/${actionId}/card/${inInbox ? `?inbox=1${open}` : ""}`);
  const result = existing?.querySelector(".item-result:not([hidden])");
  if (result) card.querySelector(".item-result")?.replaceWith(result);
  if (existing) existing.replaceWith(card);
  return card;
}

// The requester takes back their own pending action; approvers see the card turn "Withdrawn".
async function withdraw(button) {
  await cardRequest({
    url: `/api/actions/${button.dataset.withdraw}/withdraw`,
    body: {},
    buttons: [button],
    pressed: button,
    busy: "Withdrawing…",
    error: $(".withdraw-error", button.closest(".card")),
    failed: "The withdrawal failed",
    done: async () => {
      await refreshCard(button.dataset.withdraw);
      refreshCount();
    },
  });
}

document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-withdraw]");
  if (button) withdraw(button);
});

// An approver's edit is a counter-proposal: someone else confirms or declines it (docs/web.md).
async function confirmEdit(button) {
  const card = button.closest(".card");
  await cardRequest({
    url: `/api/actions/${button.dataset.action}/${button.dataset.confirm}`,
    body: { note: $("[data-kind=confirm-note]", card)?.value || "" },
    buttons: [...card.querySelectorAll("button[data-confirm]")],
    pressed: button,
    busy: BUSY[button.dataset.confirm],
    error: $(".confirm-error", card),
    failed: `The ${button.dataset.confirm} failed`,
    done: async () => {
      await refreshCard(button.dataset.action);
      refreshCount();
    },
  });
}

document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-confirm]");
  if (button) confirmEdit(button);
});

// An approver puts a request aside: it leaves their inbox and badge until the snooze ends.
async function snooze(button) {
  const card = button.closest(".card");
  await cardRequest({
    url: `/api/actions/${button.dataset.action}/snooze`,
    body: { until: button.dataset.snooze },
    buttons: [...card.querySelectorAll("button[data-snooze]")],
    pressed: button,
    busy: "Snoozing…",
    error: $(".snooze-error", card),
    failed: "The snooze failed",
    done: async () => {
      // The card stays in the page, snoozed: the "Snoozed" filter shows it, Undo brings it back.
      const snoozed = await refreshCard(button.dataset.action);
      inboxChanged();
      refreshCount();
      inboxSay(`Snoozed: ${snoozed.dataset.summary}.`, { undo: snoozed.dataset.action });
    },
  });
}

// Ends the viewer's snooze now (DELETE …/snooze): the card is back in their inbox and badge.
async function unsnooze(actionId, pressed, error) {
  await cardRequest({
    url: `/api/actions/${actionId}/snooze`,
    method: "DELETE",
    buttons: pressed ? [pressed] : [],
    pressed,
    busy: "Bringing it back…",
    error,
    failed: "Bringing it back failed",
    done: async () => {
      const card = await refreshCard(actionId);
      inboxChanged();
      refreshCount();
      inboxSay(`Back in your inbox: ${card.dataset.summary}.`);
    },
  });
}

document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-unsnooze]");
  if (button) unsnooze(button.dataset.unsnooze, button, $(".unsnooze-error", button.closest(".card")));
});

document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-snooze]");
  if (button) snooze(button);
});

document.addEventListener("submit", (event) => {
  const form = event.target.closest("form.decide");
  if (!form) return;
  event.preventDefault();
  const reject = event.submitter?.value === "reject";
  decide(form, reject ? "reject" : "approve", event.submitter || $("button[value=approve]", form));
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
    const time = document.createElement("time");
    time.dateTime = new Date().toISOString();
    time.textContent = timeAgo(time.dateTime);
    item.append(link, time);
    list.prepend(item);
    $(".history").scrollTo({ top: 0 });
    // The new conversation can be renamed and deleted at once, without a reload.
    const head = $("[data-testid=thread-head]");
    if (head) {
      $("#conversation-title").textContent = link.textContent;
      $("#rename-title").value = link.textContent;
      head.hidden = false;
    }
  }

  function append(node) {
    $("#empty-thread")?.remove();
    thread.append(node);
    messageActions(node);
    scrollDown();
  }

  // A user message shown before (or without) a page render; text only, never markup.
  function userBubble(words, data) {
    const bubble = document.createElement("article");
    bubble.className = "msg msg-user";
    Object.assign(bubble.dataset, data);
    bubble.dataset.testid = "message-user";
    const body = document.createElement("div");
    body.className = "msg-body plain";
    body.textContent = words;
    bubble.append(body);
    return bubble;
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
    if (existing) {
      existing.replaceWith(node);
      messageActions(node);
    } else append(node);
  }

  // Copy on every message; regenerate (a reply) and edit (a question) for the owner only. Both
  // go through the composer, so they are plain new messages on the usual send path: the
  // history keeps what was asked before (docs/web.md, "Messages").
  const owner = chat.dataset.owner === "1" && composer;
  function messageActions(node) {
    if (!node?.matches?.(".msg-user, .msg-assistant:not(.streaming)") || $(".msg-actions", node)) return;
    const bar = document.createElement("div");
    bar.className = "msg-actions";
    const button = (label, action) => {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = label;
      b.dataset.msgAction = action;
      bar.append(b);
    };
    button("Copy", "copy");
    if (owner && node.matches(".msg-assistant")) button("Regenerate", "regenerate");
    if (owner && node.matches(".msg-user")) button("Edit", "edit");
    node.append(bar);
  }
  const bodyText = (node) => ($(".msg-body", node)?.innerText || "").trim();
  // The question a reply answers: the nearest user message before it.
  function questionOf(reply) {
    let node = reply.previousElementSibling;
    while (node && !node.matches(".msg-user")) node = node.previousElementSibling;
    return node;
  }
  thread.addEventListener("click", async (event) => {
    const b = event.target.closest("[data-msg-action]");
    if (!b) return;
    const message = b.closest(".msg");
    if (b.dataset.msgAction === "copy") {
      await copyText(bodyText(message));
      b.textContent = "Copied";
      setTimeout(() => (b.textContent = "Copy"), 2000);
    } else if (b.dataset.msgAction === "regenerate") {
      const question = questionOf(message);
      if (!question) return;
      text.value = bodyText(question);
      composer.requestSubmit();
    } else if (b.dataset.msgAction === "edit") {
      text.value = bodyText(message);
      text.dispatchEvent(new Event("input"));
      text.focus();
      text.setSelectionRange(text.value.length, text.value.length);
    }
  });
  thread.querySelectorAll(".msg").forEach(messageActions);

  async function onEvent(frame) {
    if (frame.conversation !== conversation || typeof frame.seq !== "number") return;
    if (frame.seq <= seen) return; // a replay of something already shown
    seen = frame.seq;
    switch (frame.type) {
      case "message":
        // The question, as it was stored: another tab (or the page rendered before it) needs
        // it; the tab that sent it already shows it under the uuid ``accepted`` gave it.
        if (!thread.querySelector(`[data-message="${frame.message}"]`)) {
          append(userBubble(frame.text, { message: frame.message }));
          setStatus(STAGES.thinking);
          setRunning(true);
        }
        break;
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
        if (["rejected", "approved", "withdrawn", "expired"].includes(frame.action.status)) setStatus("");
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
  historyStaysPut();
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
    append(userBubble(words, { clientId }));
    connection.send({ type: "chat.send", conversation, text: words, client_id: clientId });
    text.value = "";
    counter.update();
    setStatus(STAGES.thinking);
    setRunning(true);
  });
  // A clarifying question's readings: pressing one sends it, as if typed, and answers it.
  thread.addEventListener("click", (event) => {
    const choice = event.target.closest?.(".choice");
    if (!choice || !thread.contains(choice)) return;
    text.value = choice.dataset.choice;
    counter.update();
    composer.requestSubmit();
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

// -- the conversation list: its place, its times ---------------------------------------------

// Opening a conversation is a page load: the list's scroll position is kept across it (per
// tab), and the open conversation is brought into the list's view if it is not already.
const HISTORY_SCROLL = "countersign.history.scrollTop";
function historyStaysPut() {
  const pane = $(".history");
  if (!pane) return;
  pane.addEventListener("click", (event) => {
    if (event.target.closest("[data-testid=history] a")) {
      sessionStorage.setItem(HISTORY_SCROLL, String(pane.scrollTop));
    }
  });
  const kept = Number(sessionStorage.getItem(HISTORY_SCROLL));
  sessionStorage.removeItem(HISTORY_SCROLL);
  if (kept) pane.scrollTop = kept;
  const current = $("[data-testid=history] a[aria-current]", pane);
  if (current) {
    const box = pane.getBoundingClientRect();
    const at = current.getBoundingClientRect();
    // Only the list scrolls (scrollIntoView could move the page too).
    if (at.top < box.top || at.bottom > box.bottom) {
      pane.scrollTop += at.top - box.top - (box.height - at.height) / 2;
    }
  }
  const reword = () =>
    pane.querySelectorAll("time[datetime]").forEach((time) => (time.textContent = timeAgo(time.dateTime)));
  reword();
  setInterval(reword, 30_000);
}

// "just now", "5 minutes ago", "3 days ago": one unit, rounded down, from the item's datetime.
const UNITS = [
  ["year", 365 * 86400],
  ["month", 30 * 86400],
  ["week", 7 * 86400],
  ["day", 86400],
  ["hour", 3600],
  ["minute", 60],
];
function timeAgo(iso) {
  const seconds = (Date.now() - new Date(iso).getTime()) / 1000;
  for (const [unit, size] of UNITS) {
    const n = Math.floor(seconds / size);
    if (n >= 1) return `${n} ${unit}${n === 1 ? "" : "s"} ago`;
  }
  return "just now";
}

// The Clipboard API needs a secure context (plain http on a LAN host is not one): then the
// old way, a selected off-screen text area.
async function copyText(words) {
  try {
    await navigator.clipboard.writeText(words);
    return;
  } catch {
    const area = document.createElement("textarea");
    area.value = words;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.append(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }
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

// Set by inboxPage: re-applies the filters and the counts after a card came or went, and says
// something in the notice above the list (with an Undo of a snooze).
let inboxChanged = () => {};
let inboxSay = () => {};

// How the notice words what happened to a request that left the list (the feed's statuses).
const LEFT_AS = {
  approved: "was approved",
  executing: "was approved",
  executed: "was approved and carried out",
  failed: "was approved but failed",
  rejected: "was rejected",
  withdrawn: "was withdrawn by whoever asked",
  expired: "expired",
};
// The age filter's ranges, in seconds waited.
const AGES = { hour: [0, 3600], day: [3600, 86400], older: [86400, Infinity] };
// The bulk endpoint's limit per request (docs/api.md); more selected cards go in several.
const BULK_LIMIT = 50;

function inboxPage() {
  const list = $("#inbox-list");
  const waiting = $("#waiting-list");
  const filters = $("#inbox-filters");
  const pickAll = $("#pick-all");
  const notice = $("#inbox-notice");
  const bulkButtons = [...document.querySelectorAll("[data-bulk]")];
  const cards = () => [...list.querySelectorAll(":scope > .card")];
  const pickable = () => cards().filter((card) => !card.hidden && $(".pick", card));
  const picked = () => pickable().filter((card) => $(".pick", card).checked);

  const snoozedView = () => filters.elements.show.value === "snoozed";
  const inView = (card) => (card.dataset.snoozed === "1") === snoozedView();

  function matches(card) {
    if (!inView(card)) return false;
    const wanted = new FormData(filters);
    const words = String(wanted.get("q") || "").trim().toLowerCase().split(/\s+/).filter(Boolean);
    if (!words.every((word) => card.dataset.search.includes(word))) return false;
    if (wanted.get("tool") && card.dataset.tool !== wanted.get("tool")) return false;
    if (wanted.get("requester") && card.dataset.requester !== wanted.get("requester")) return false;
    const range = AGES[wanted.get("age")];
    if (range) {
      const waited = Date.now() / 1000 - Number(card.dataset.created);
      if (waited < range[0] || waited >= range[1]) return false;
    }
    return true;
  }

  // The tool and requester choices are those of the cards listed now (they come and go live),
  // plus the one chosen: a filter whose last card left stays chosen and says "No request
  // matches" with a Clear button, instead of silently turning into "Any action".
  function fillChoices(select, values, wanted = select.value) {
    const distinct = [...new Set([...values, ...(wanted ? [wanted] : [])])];
    distinct.sort((a, b) => a.localeCompare(b));
    select.replaceChildren(select.options[0], ...distinct.map((value) => new Option(value, value)));
    select.value = wanted;
  }

  // The filters live in the address (?tool=Send+SMS&show=snoozed…), so reload, back and
  // forward, and a link someone shares keep them.
  function fromAddress() {
    const params = new URLSearchParams(location.search);
    for (const control of filters.elements) {
      if (!control.name || control.name === "tool" || control.name === "requester") continue;
      const value = params.get(control.name) || "";
      if (control.tagName !== "SELECT" || [...control.options].some((o) => o.value === value)) {
        control.value = value;
      }
    }
    return { tool: params.get("tool") || "", requester: params.get("requester") || "" };
  }

  function toAddress() {
    const params = new URLSearchParams();
    for (const [name, value] of new FormData(filters)) if (String(value).trim()) params.set(name, value);
    const query = params.toString();
    const address = `${location.pathname}${query ? `?${query}` : ""}${location.hash}`;
    if (address !== `${location.pathname}${location.search}${location.hash}`) {
      history.replaceState(history.state, "", address);
    }
  }

  function apply(wanted = {}) {
    const all = cards();
    fillChoices(filters.elements.tool, all.map((card) => card.dataset.tool), wanted.tool);
    fillChoices(filters.elements.requester, all.map((card) => card.dataset.requester), wanted.requester);
    toAddress();
    const snoozedCount = all.filter((card) => card.dataset.snoozed === "1").length;
    filters.elements.show.options[1].textContent = `Snoozed by me (${snoozedCount})`;
    const viewed = all.filter(inView);
    let shown = 0;
    for (const card of all) {
      card.hidden = !matches(card);
      const box = $(".pick", card);
      if (card.hidden && box) box.checked = false; // never decide what one cannot see
      if (!card.hidden) shown++;
    }
    $("#shown-count").textContent = viewed.length ? `Showing ${shown} of ${viewed.length}` : "";
    $("#empty-inbox").hidden = snoozedView() || viewed.length > 0;
    $("#empty-snoozed").hidden = !snoozedView() || viewed.length > 0;
    $("#no-match").hidden = !(viewed.length > 0 && shown === 0);
    $("#empty-waiting").hidden = waiting.children.length > 0;
    updateBulk();
  }

  function updateBulk() {
    const count = picked().length;
    for (const button of bulkButtons) {
      const verb = button.dataset.bulk === "approve" ? "Approve" : "Reject";
      button.disabled = count === 0;
      button.textContent = count ? `${verb} ${count} selected` : `${verb} selected`;
    }
    const candidates = pickable().length;
    pickAll.checked = candidates > 0 && count === candidates;
    pickAll.indeterminate = count > 0 && count < candidates;
  }

  // The notice is a few lines: what left the list live, what a bulk decision decided (each
  // request by name, not one for all), or a failed request with its Retry.
  let noticeTimer = null;
  function showNotice(lines, { retry = null, keep = false } = {}) {
    const items = (Array.isArray(lines) ? lines : [lines]).map((words) => {
      const line = document.createElement("p");
      line.textContent = words;
      return line;
    });
    // A live "left the list" line joins those shown; anything else starts the notice afresh.
    if (keep && !notice.hidden) notice.append(...items);
    else notice.replaceChildren(...items);
    if (retry) sayProblem(items.at(-1), items.at(-1).textContent, retry);
    notice.hidden = false;
    clearTimeout(noticeTimer);
    // A notice offering Retry stays until it is used; the others fade after a while.
    if (!notice.querySelector("[data-testid=retry]")) {
      noticeTimer = setTimeout(() => (notice.hidden = true), 12000);
    }
  }

  function showResult(card, words, failed) {
    const line = $(".item-result", card);
    line.textContent = words;
    line.classList.toggle("failed", failed);
    line.hidden = false;
  }

  // Ticked cards go in batches of BULK_LIMIT, each with its own Idempotency-Key made once: a
  // Retry after a dropped connection resends the batches not yet answered with the same keys.
  async function decideSelected(decision, pressed, batches = null) {
    if (!batches) {
      const chosen = picked().map((card) => ({ id: card.dataset.action, name: card.dataset.summary }));
      batches = [];
      for (let start = 0; start < chosen.length; start += BULK_LIMIT) {
        batches.push({ cards: chosen.slice(start, start + BULK_LIMIT), key: uuid4() });
      }
    }
    const total = batches.reduce((sum, batch) => sum + batch.cards.length, 0);
    const done = decision === "approve" ? "Approved" : "Rejected";
    const words = pressed.textContent;
    bulkButtons.forEach((button) => (button.disabled = true));
    pressed.textContent = `${decision === "approve" ? "Approving" : "Rejecting"} ${total}…`;
    const decided = [];
    const refused = [];
    for (const [index, batch] of batches.entries()) {
      const ids = batch.cards.map((card) => card.id);
      const result = await postJson("/api/actions/decide", { decision, actions: ids }, batch.key);
      if (!result.ok) {
        const problem = result.status
          ? result.payload.error?.message || `The ${decision} failed (${result.status}).`
          : `${NO_ANSWER} try again.`;
        const rest = batches.slice(index);
        const again = result.retry ? () => decideSelected(decision, pressed, rest) : null;
        showNotice([...summary(decided, refused, done), problem], { retry: again });
        pressed.textContent = words;
        updateBulk();
        return;
      }
      const names = new Map(batch.cards.map((card) => [card.id, card.name]));
      for (const item of result.payload.results) {
        // The feed may already have refreshed the card: find it again by its id.
        const card = list.querySelector(`.card[data-action="${item.action}"]`);
        if (item.ok) decided.push(names.get(item.action));
        else refused.push(`${names.get(item.action)}: ${item.error.message}`);
        if (!card) continue;
        card.dataset.decidedHere = "1"; // the notice below names it; the feed need not again
        const box = $(".pick", card);
        if (box) box.checked = false;
        if (item.ok) showResult(card, done, false);
        else showResult(card, `Not ${done.toLowerCase()}: ${item.error.message}`, true);
      }
    }
    showNotice(summary(decided, refused, done));
    pressed.textContent = words;
    updateBulk();
  }

  function summary(decided, refused, done) {
    const lines = [];
    if (decided.length) {
      lines.push(`${done} ${decided.length} request${decided.length === 1 ? "" : "s"}:`, ...decided);
    }
    if (refused.length) lines.push(`Not ${done.toLowerCase()}:`, ...refused);
    return lines;
  }

  // A link to one request (a notification's "Open: …/approvals/#action-<id>") unfolds it.
  function unfoldTarget() {
    if (!location.hash.startsWith("#action-")) return;
    const details = document.getElementById(location.hash.slice(1))?.querySelector("details.unfold");
    if (details) details.open = true;
  }

  // Ages as the server words them (chat/presenters.py _age), kept current while the page is open.
  function refreshAges() {
    for (const card of document.querySelectorAll("#inbox .card[data-created]")) {
      const minutes = Math.max(0, Math.floor((Date.now() / 1000 - Number(card.dataset.created)) / 60));
      const age = $("summary .age", card);
      if (!age) continue;
      if (minutes < 1) age.textContent = "just now";
      else if (minutes < 60) age.textContent = `${minutes} min ago`;
      else if (minutes < 48 * 60) age.textContent = `${Math.floor(minutes / 60)} h ago`;
      else age.textContent = `${Math.floor(minutes / (24 * 60))} days ago`;
    }
  }
  setInterval(refreshAges, 60_000);

  inboxChanged = apply;
  inboxSay = (words, { undo = null } = {}) => {
    showNotice(words);
    if (!undo) return;
    const line = notice.lastElementChild;
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.testid = "undo";
    button.textContent = "Undo";
    button.addEventListener("click", () => unsnooze(undo, button, line));
    line.append(" ", button);
  };
  filters.addEventListener("input", () => apply());
  $("#clear-filters").addEventListener("click", () => {
    for (const control of filters.elements) if (control.name && control.name !== "show") control.value = "";
    apply();
  });
  window.addEventListener("popstate", () => apply(fromAddress()));
  filters.addEventListener("submit", (event) => event.preventDefault());
  pickAll.addEventListener("change", () => {
    pickable().forEach((card) => ($(".pick", card).checked = pickAll.checked));
    updateBulk();
  });
  list.addEventListener("change", (event) => {
    if (event.target.matches(".pick")) updateBulk();
  });
  bulkButtons.forEach((button) =>
    button.addEventListener("click", () => decideSelected(button.dataset.bulk, button)),
  );
  window.addEventListener("hashchange", unfoldTarget);
  unfoldTarget();
  apply(fromAddress());

  let handled = Promise.resolve();
  connection.handlers.push((frame) => {
    if (frame.type !== "pending" && frame.type !== "action") return;
    handled = handled.then(() => onFeed(frame)).catch((problem) => console.error(problem));
  });
  async function onFeed(frame) {
    refreshCount();
    const id = frame.action.id;
    const existing = document.querySelector(`#inbox .card[data-action="${id}"]`);
    if (frame.type === "pending" && !existing) {
      const card = await fragment(`/actions/${id}/card/?inbox=1`);
      (card.dataset.waitsForOthers === "1" ? waiting : list).prepend(card);
    } else if (frame.type === "action" && existing && frame.action.status === "edited") {
      // An approver's edit stays listed, saying who must confirm it (or offering to).
      await refreshCard(id);
    } else if (frame.type === "action" && existing && !existing.dataset.leaving) {
      // Decided, withdrawn or expired: the card shows its new state for a moment, then goes.
      const card = await refreshCard(id);
      card.dataset.leaving = "1";
      const what = LEFT_AS[frame.action.status] || `is ${frame.action.status}`;
      if (!existing.dataset.decidedHere) {
        showNotice(`${card.dataset.tool} asked by ${card.dataset.requester} ${what}; it left the list.`, {
          keep: true,
        });
      }
      setTimeout(() => {
        card.remove();
        apply();
      }, 4000);
    }
    apply();
  }
  // After a dropped connection the feed may have missed arrivals: refetch both lists.
  let first = true;
  connection.onOpen.push(async () => {
    if (first) return void (first = false);
    const response = await fetch(location.href, { credentials: "same-origin" }).catch(() => null);
    if (!response?.ok) return;
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    list.replaceChildren(...page.querySelector("#inbox-list").children);
    waiting.replaceChildren(...page.querySelector("#waiting-list").children);
    apply();
    refreshCount();
  });
}

// For diagnostics in the browser console (and the browser tests): the live connection.
globalThis.countersign = { connection };

if (chat) chatPage();
if (inbox) inboxPage();
if (chat || inbox) connection.start();
