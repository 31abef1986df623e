// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {Permit2} from "./Permit2.sol";

/*
 * The x402 Permit2 proxies as the x402 scheme specs define them and @x402/evm 2.27 calls them: the
 * spender a buyer's Permit2 signature names, paying only the destination in the signed witness, so
 * a facilitator cannot redirect the money. Written for the dev chain, where they run at the
 * proxies' canonical addresses (chain/devChain.ts). Permit2 is a constant, not an immutable set by a
 * constructor, so the code means the same wherever it is copied.
 */
abstract contract X402Permit2ProxyBase is ReentrancyGuard {
    Permit2 public constant PERMIT2 = Permit2(0x000000000022D473030F116dDEE9F6B43aC78BA3);

    struct EIP2612Permit {
        uint256 value;
        uint256 deadline;
        bytes32 r;
        bytes32 s;
        uint8 v;
    }

    event Settled();
    event SettledWithPermit();

    error InvalidDestination();
    error InvalidOwner();
    error InvalidPermit2Address();
    error PaymentTooEarly();
    error Permit2612AmountMismatch();

    /// A buyer's EIP-2612 approval of Permit2, tried first; a failure is not fatal (an approval may exist).
    function _permit2612(address token, address owner, EIP2612Permit calldata permit2612, uint256 permitted) internal {
        if (permit2612.value < permitted) revert Permit2612AmountMismatch();
        try IERC20Permit(token).permit(owner, address(PERMIT2), permit2612.value, permit2612.deadline, permit2612.v, permit2612.r, permit2612.s) {}
        catch {}
    }

    function _checkParties(address owner, address to, uint256 validAfter) internal view {
        if (owner == address(0)) revert InvalidOwner();
        if (to == address(0)) revert InvalidDestination();
        if (block.timestamp < validAfter) revert PaymentTooEarly();
    }
}

/// exact: the permitted amount, all of it, to the witness's `to`.
contract x402ExactPermit2Proxy is X402Permit2ProxyBase {
    string public constant WITNESS_TYPE_STRING =
        "Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,uint256 validAfter)";
    bytes32 public constant WITNESS_TYPEHASH = keccak256("Witness(address to,uint256 validAfter)");

    struct Witness {
        address to;
        uint256 validAfter;
    }

    error InvalidAmount();

    function settle(Permit2.PermitTransferFrom calldata permit, address owner, Witness calldata witness, bytes calldata signature)
        external
        nonReentrant
    {
        _settle(permit, owner, witness, signature);
        emit Settled();
    }

    function settleWithPermit(
        EIP2612Permit calldata permit2612,
        Permit2.PermitTransferFrom calldata permit,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        _permit2612(permit.permitted.token, owner, permit2612, permit.permitted.amount);
        _settle(permit, owner, witness, signature);
        emit SettledWithPermit();
    }

    function _settle(Permit2.PermitTransferFrom calldata permit, address owner, Witness calldata witness, bytes calldata signature) private {
        _checkParties(owner, witness.to, witness.validAfter);
        if (permit.permitted.amount == 0) revert InvalidAmount();
        bytes32 witnessHash = keccak256(abi.encode(WITNESS_TYPEHASH, witness.to, witness.validAfter));
        PERMIT2.permitWitnessTransferFrom(
            permit, Permit2.SignatureTransferDetails(witness.to, permit.permitted.amount), owner, witnessHash, WITNESS_TYPE_STRING, signature
        );
    }
}

/// upto: any amount up to the permitted one, settled only by the facilitator the witness names.
contract x402UptoPermit2Proxy is X402Permit2ProxyBase {
    string public constant WITNESS_TYPE_STRING =
        "Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,address facilitator,uint256 validAfter)";
    bytes32 public constant WITNESS_TYPEHASH = keccak256("Witness(address to,address facilitator,uint256 validAfter)");

    struct Witness {
        address to;
        address facilitator;
        uint256 validAfter;
    }

    error AmountExceedsPermitted();
    error UnauthorizedFacilitator();

    function settle(
        Permit2.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        _settle(permit, amount, owner, witness, signature);
        emit Settled();
    }

    function settleWithPermit(
        EIP2612Permit calldata permit2612,
        Permit2.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        _permit2612(permit.permitted.token, owner, permit2612, permit.permitted.amount);
        _settle(permit, amount, owner, witness, signature);
        emit SettledWithPermit();
    }

    function _settle(
        Permit2.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) private {
        _checkParties(owner, witness.to, witness.validAfter);
        if (msg.sender != witness.facilitator) revert UnauthorizedFacilitator();
        if (amount > permit.permitted.amount) revert AmountExceedsPermitted();
        bytes32 witnessHash = keccak256(abi.encode(WITNESS_TYPEHASH, witness.to, witness.facilitator, witness.validAfter));
        PERMIT2.permitWitnessTransferFrom(
            permit, Permit2.SignatureTransferDetails(witness.to, amount), owner, witnessHash, WITNESS_TYPE_STRING, signature
        );
    }
}
