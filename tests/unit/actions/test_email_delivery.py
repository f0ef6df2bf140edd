"""SmtpEmailBackend against a real local SMTP server (aiosmtpd)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from actions.delivery import Delivery, PermanentDeliveryError, TransientDeliveryError
from actions.delivery.email import SmtpEmailBackend, message_id_for
from tests.unit.actions.fakes import FakeSmtpServer, free_port


@pytest.fixture
def smtp() -> Iterator[FakeSmtpServer]:
    with FakeSmtpServer() as server:
        yield server


def backend_for(
    server: FakeSmtpServer,
    *,
    username: str | None = None,
    password: str | None = None,
    use_tls: bool = False,
) -> SmtpEmailBackend:
    return SmtpEmailBackend(
        server.host,
        server.port,
        from_email="Countersign <noreply@academy.example>",
        username=username,
        password=password,
        use_tls=use_tls,
        timeout=5.0,
    )


def email(key: str = "action-9", subject: str | None = "Timetable change") -> Delivery:
    return Delivery(
        channel="email",
        to_address="parent@example.com",
        subject=subject,
        body="Thursday's class starts at 5pm.\nSee you there.",
        idempotency_key=key,
    )


def test_it_delivers_the_message_to_the_recipient(smtp: FakeSmtpServer) -> None:
    backend_for(smtp).send(email())

    mail = smtp.messages[0]
    assert mail.mail_from == "noreply@academy.example"
    assert mail.rcpt_tos == ["parent@example.com"]
    assert mail.message["Subject"] == "Timetable change"
    assert mail.message.get_content() == "Thursday's class starts at 5pm.\nSee you there.\n"


def test_non_ascii_subject_and_body_arrive_intact(smtp: FakeSmtpServer) -> None:
    delivery = Delivery(
        channel="email",
        to_address="parent@example.com",
        subject="Расписание: занятие перенесено",
        body="Занятие в четверг начнётся в 17:00.",
        idempotency_key="action-10",
    )

    backend_for(smtp).send(delivery)

    assert smtp.messages[0].message["Subject"] == "Расписание: занятие перенесено"
    assert smtp.messages[0].message.get_content() == "Занятие в четверг начнётся в 17:00.\n"


def test_message_id_is_derived_from_the_idempotency_key(smtp: FakeSmtpServer) -> None:
    result = backend_for(smtp).send(email("action-9"))

    assert smtp.messages[0].message["Message-ID"] == "<action-9@countersign>"
    assert result.provider_message_id == "<action-9@countersign>"
    assert result.status == "accepted"


def test_a_resend_carries_the_same_message_id(smtp: FakeSmtpServer) -> None:
    backend = backend_for(smtp)
    backend.send(email("action-9"))
    backend.send(email("action-9"))

    assert {m.message["Message-ID"] for m in smtp.messages} == {"<action-9@countersign>"}


def test_a_key_unfit_for_a_message_id_is_hashed_stably() -> None:
    assert message_id_for("a b<c>") == message_id_for("a b<c>")
    assert message_id_for("a b<c>") != message_id_for("a b<d>")
    assert " " not in message_id_for("a b<c>")


def test_it_omits_the_subject_when_none_is_given(smtp: FakeSmtpServer) -> None:
    backend_for(smtp).send(email(subject=None))

    assert "Subject" not in smtp.messages[0].message


def test_smtp_451_is_transient(smtp: FakeSmtpServer) -> None:
    smtp.fail_next("451 4.3.0 Mailbox temporarily unavailable")

    with pytest.raises(
        TransientDeliveryError, match=re.escape("451 4.3.0 Mailbox temporarily")
    ) as caught:
        backend_for(smtp).send(email())

    assert caught.value.provider_code == "451"
    assert smtp.messages == []


def test_smtp_550_is_permanent(smtp: FakeSmtpServer) -> None:
    smtp.fail_next("550 5.1.1 No such user here")

    with pytest.raises(PermanentDeliveryError, match=re.escape("550 5.1.1 No such user here")):
        backend_for(smtp).send(email())


def test_smtp_554_after_data_is_permanent(smtp: FakeSmtpServer) -> None:
    smtp.fail_next("554 5.7.1 Message rejected as spam", at="data")

    with pytest.raises(PermanentDeliveryError, match="rejected as spam"):
        backend_for(smtp).send(email())


def test_smtp_452_after_data_is_transient(smtp: FakeSmtpServer) -> None:
    smtp.fail_next("452 4.3.1 Insufficient system storage", at="data")

    with pytest.raises(TransientDeliveryError, match="Insufficient system storage"):
        backend_for(smtp).send(email())


def test_connection_refused_is_transient() -> None:
    backend = SmtpEmailBackend("127.0.0.1", free_port(), from_email="noreply@academy.example")

    with pytest.raises(TransientDeliveryError, match="SMTP connection failed"):
        backend.send(email())


# The fake relay allows AUTH without TLS on loopback; aiosmtpd warns about that, rightly
# for a real server and needlessly here.
auth_without_tls = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")


@auth_without_tls
def test_it_logs_in_when_credentials_are_given() -> None:
    with FakeSmtpServer(username="mailer", password="s3cret") as server:
        backend_for(server, username="mailer", password="s3cret").send(email())

    assert server.logins == ["mailer"]
    assert len(server.messages) == 1


@auth_without_tls
def test_rejected_credentials_are_permanent() -> None:
    with (
        FakeSmtpServer(username="mailer", password="s3cret") as server,
        pytest.raises(PermanentDeliveryError, match="535"),
    ):
        backend_for(server, username="mailer", password="wrong").send(email())


def test_starttls_on_a_server_without_it_is_permanent(smtp: FakeSmtpServer) -> None:
    with pytest.raises(PermanentDeliveryError, match="STARTTLS"):
        backend_for(smtp, use_tls=True).send(email())


def test_a_line_break_in_the_subject_is_refused_not_injected(smtp: FakeSmtpServer) -> None:
    with pytest.raises(PermanentDeliveryError, match="cannot build e-mail"):
        backend_for(smtp).send(email(subject="Hello\nBcc: everyone@example.com"))

    assert smtp.messages == []


def test_tls_and_ssl_together_are_a_configuration_error() -> None:
    with pytest.raises(ValueError, match="exclude each other"):
        SmtpEmailBackend("mail", 465, from_email="a@b.example", use_tls=True, use_ssl=True)
