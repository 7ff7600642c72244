package dev.umbra.billing.billingkey;

import dev.umbra.billing.gateway.GatewayFault;
import dev.umbra.billing.gateway.GatewayRejection;
import dev.umbra.billing.gateway.PaymentGatewayClient;
import dev.umbra.billing.gateway.PaymentGatewayClient.IssuedBillingKey;
import dev.umbra.events.billing.BillingKeyDeleted;
import dev.umbra.events.billing.BillingKeyIssued;
import dev.umbra.platform.outbox.OutboxWriter;
import dev.umbra.platform.storage.DatabaseGuard;
import dev.umbra.platform.web.ProblemException;
import io.quarkus.hibernate.reactive.panache.common.WithSession;
import io.quarkus.hibernate.reactive.panache.common.WithTransaction;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.LockModeType;
import java.time.Clock;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;

/**
 * Billing keys: issued by the gateway from an auth key (outside any transaction), then stored encrypted
 * with BillingKeyIssued in one transaction. The auth key and the gateway's key appear in no log, event
 * or answer. The customer key the gateway binds a billing key to is the user's id.
 */
@ApplicationScoped
public class BillingKeyService {

    private final PaymentGatewayClient gateway;
    private final BillingKeyCipher cipher;
    private final OutboxWriter outbox;
    private final Clock clock;

    public BillingKeyService(PaymentGatewayClient gateway, BillingKeyCipher cipher, OutboxWriter outbox, Clock clock) {
        this.gateway = gateway;
        this.cipher = cipher;
        this.outbox = outbox;
        this.clock = clock;
    }

    /** The gateway issues the key (no transaction held meanwhile); then it is stored. */
    public Uni<BillingKey> issue(UUID userId, String authKey) {
        return gateway.issueBillingKey(authKey, userId.toString())
                .onFailure().transform(BillingKeyService::asProblem)
                .chain(issued -> store(userId, issued));
    }

    @WithTransaction
    @DatabaseGuard
    Uni<BillingKey> store(UUID userId, IssuedBillingKey issued) {
        BillingKey key = new BillingKey();
        key.id = UUID.randomUUID();
        key.userId = userId;
        key.encryptedKey = cipher.encrypt(new GatewayBillingKey(issued.billingKey()), key.id);
        MaskedCard card = MaskedCard.of(issued.issuer() == null || issued.issuer().isBlank() ? "CARD" : issued.issuer(),
                issued.maskedCardNumber());
        key.cardBrand = card.brand();
        key.cardLast4 = card.last4();
        key.createdAt = clock.instant();
        return key.persist().chain(() -> outbox.publish(new BillingKeyIssued(userId, key.id))).replaceWith(key);
    }

    @WithSession
    public Uni<List<BillingKey>> list(UUID userId) {
        return BillingKey.listLive(userId);
    }

    /**
     * Deleted once, with one BillingKeyDeleted; deleting it again changes nothing. 404 for a key the user never had; 409 while
     * a charge with it may still reach the gateway (for at most the longest call the guard makes), so that a key answered
     * "deleted" is never charged afterwards.
     */
    @WithTransaction
    public Uni<Void> delete(UUID userId, UUID id) {
        return BillingKey.<BillingKey>find("id = ?1 and userId = ?2", id, userId).withLock(LockModeType.PESSIMISTIC_WRITE).firstResult().chain(key -> {
            if (key == null) {
                return Uni.createFrom().failure(ProblemException.notFound("no billing key " + id + " for this user"));
            }
            if (key.deleted()) {
                return Uni.createFrom().voidItem();
            }
            return BillingKeyCharge.anyOnTheirWay(id).chain(charging -> {
                if (charging) {
                    return Uni.createFrom().failure(ProblemException.conflict("a charge with billing key " + id
                            + " is on its way to the payment gateway; delete the key once it is answered, in a few seconds"));
                }
                key.deletedAt = clock.instant();
                return outbox.publish(new BillingKeyDeleted(userId, id)).replaceWithVoid();
            });
        });
    }

    /** The gateway's key, decrypted for one charge; never logged ({@link GatewayBillingKey#toString()}). */
    public GatewayBillingKey reveal(BillingKey key) {
        return cipher.decrypt(key.encryptedKey, key.id);
    }

    private static Throwable asProblem(Throwable failure) {
        if (failure instanceof GatewayRejection rejection) {
            return ProblemException.unprocessable("the payment gateway refused the auth key (" + rejection.code() + ")");
        }
        if (failure instanceof CircuitBreakerOpenException) {
            return new ProblemException(503, "Service Unavailable", "the payment gateway is unavailable; try again later");
        }
        if (failure instanceof GatewayFault) {
            return new ProblemException(502, "Bad Gateway", "the payment gateway did not issue the key; try again");
        }
        return failure;
    }
}
