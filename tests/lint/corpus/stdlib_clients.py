"""Stdlib mail, news and FTP clients used without a context: they do not verify (gh-91826)."""
import ftplib
import imaplib
import poplib
import smtplib
import ssl
from ftplib import FTP_TLS
from smtplib import SMTP, SMTP_SSL


def smtp(host, user, password):
    with smtplib.SMTP_SSL(host, 465) as server:  # expect: SSC601
        server.login(user, password)
    s = SMTP_SSL(host=host, timeout=10)  # expect: SSC601
    plain = SMTP(host, 587)
    plain.starttls()  # expect: SSC602
    with smtplib.SMTP(host) as relay:
        relay.ehlo()
        relay.starttls()  # expect: SSC602
    return s


def smtp_unknown(server):
    server.starttls()  # expect: SSC602


def imap(host):
    box = imaplib.IMAP4_SSL(host)  # expect: SSC603
    other = imaplib.IMAP4(host)
    other.starttls()  # expect: SSC602
    return box


def pop(host):
    mail = poplib.POP3_SSL(host, 995)  # expect: SSC604
    upgraded = poplib.POP3(host)
    upgraded.stls()  # expect: SSC602
    return mail


def ftp(host):
    ftps = ftplib.FTP_TLS(host)  # expect: SSC605
    ftps.login()
    ftps.prot_p()
    other = FTP_TLS(host, "user", "secret")  # expect: SSC605
    explicit_none = ftplib.FTP_TLS(host, context=None)  # expect: SSC605
    return other, explicit_none


def news(host):
    import nntplib
    return nntplib.NNTP_SSL(host)  # expect: SSC606


# --- look-alikes ---------------------------------------------------------------------------

def safe(host, ctx, **options):
    context = ssl.create_default_context()
    smtplib.SMTP_SSL(host, context=context)  # expect: none
    with smtplib.SMTP(host) as server:
        server.starttls(context=context)  # expect: none
    imaplib.IMAP4_SSL(host, ssl_context=context)  # expect: none
    poplib.POP3_SSL(host, context=ctx)  # expect: none
    poplib.POP3(host).stls(context=ctx)  # expect: none
    ftplib.FTP_TLS(host, context=context)  # expect: none
    smtplib.SMTP_SSL(host, **options)  # expect: none
    smtplib.SMTP(host)  # expect: none
    ftplib.FTP(host)  # expect: none
