"""The default world's other players, to trade with: fixed, built in code (W1).

Two players stand a couple of yalms from where the character starts in Tuliyollal: Rhiki Rhaki
accepts a trade and puts 3 Ethers in her side; Ysolde Marchand declines every request. A third,
Bertliana, stands across the city, too far to trade with until the character walks up to her.
"""

from __future__ import annotations

from typing import Final

from ._documents import OtherPlayer, Vec3
from ._trade_documents import TradeGoods, TradeStack

__all__ = ["ACCEPTS", "DECLINES", "default_other_players"]

ACCEPTS: Final = "Rhiki Rhaki"
DECLINES: Final = "Ysolde Marchand"
_ETHER: Final = 4555


def default_other_players() -> list[OtherPlayer]:
    return [
        OtherPlayer(
            name=ACCEPTS,
            territory=1185,
            position=Vec3(x=-18.0, y=0.5, z=13.0),
            offers=TradeGoods(items=[TradeStack(item_id=_ETHER, count=3)]),
        ),
        OtherPlayer(
            name=DECLINES, world="Sephirot", territory=1185, position=Vec3(x=-22.0, y=0.5, z=10.0), trades="decline"
        ),
        OtherPlayer(name="Bertliana", territory=1185, position=Vec3(x=40.0, y=0.0, z=-30.0)),
    ]
