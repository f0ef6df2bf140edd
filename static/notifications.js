// Browser notifications for approvers (loaded on approvers' pages only, after chat.js).
//
// While the page is open in the background (another tab, a minimised window), a request that
// arrives on the approvals feed shows a system notification; clicking it opens the card in the
// inbox. It says what the card says (the description and who asked), nothing more. Permission
// can only be asked from a user gesture, hence the button in the inbox.

const { connection } = globalThis.countersign || {};
const button = document.querySelector("[data-testid=notify-browser]");
const supported = "Notification" in globalThis;

function showButton() {
  if (!button) return;
  // Nothing to ask once granted, and nothing a page can do once the person said no.
  button.hidden = !supported || Notification.permission !== "default";
}

button?.addEventListener("click", async () => {
  await Notification.requestPermission();
  showButton();
});

function announce(action) {
  const notice = new Notification("A request waits for your approval", {
    body: `${action.description}\nAsked by ${action.requested_by}`,
    tag: `action-${action.id}`, // one notice per request, even if the frame comes twice
  });
  notice.addEventListener("click", () => {
    globalThis.focus();
    location.assign(`/approvals/#action-${action.id}`);
    notice.close();
  });
}

connection?.handlers.push((frame) => {
  if (frame.type !== "pending" || frame.action?.status !== "pending") return;
  if (!document.hidden || !supported || Notification.permission !== "granted") return;
  announce(frame.action);
});

showButton();
