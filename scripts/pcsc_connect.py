"""Connecting to the card in a PC/SC reader through pyscard, shared by the check scripts."""
import time

from smartcard.System import readers
from smartcard.Exceptions import NoCardException, CardConnectionException


def connect(want, failure=SystemExit, seconds=10):
    """The connection to the card in the first reader whose name contains `want`, waiting up to
    `seconds` for a card; raises `failure(message)` when there is no such reader or no card."""
    deadline = time.time() + seconds
    while True:
        matches = [r for r in readers() if want in str(r)]
        if not matches:
            raise failure("no reader matching %r" % want)
        connection = matches[0].createConnection()
        try:
            connection.connect()
            return connection
        except (NoCardException, CardConnectionException):
            if time.time() > deadline:
                raise failure("no card in %s" % matches[0])
            time.sleep(0.2)
