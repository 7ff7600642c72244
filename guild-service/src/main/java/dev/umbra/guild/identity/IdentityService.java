package dev.umbra.guild.identity;

import dev.umbra.events.identity.UserRegistered;
import dev.umbra.events.identity.UserSessionCreated;
import dev.umbra.platform.outbox.OutboxWriter;
import dev.umbra.platform.web.ProblemException;
import io.quarkus.hibernate.reactive.panache.common.WithTransaction;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

@ApplicationScoped
public class IdentityService {

    private static final Logger LOG = Logger.getLogger(IdentityService.class);

    public record Registration(AppUser user, boolean created) {
    }

    /** The token is in this object only, on its way to the client; never log it. */
    public record NewSession(UUID userId, String token, Instant expiresAt) {
        @Override
        public String toString() {
            return "NewSession[user " + userId + ", expires " + expiresAt + "]";
        }
    }

    private final OutboxWriter outbox;
    private final Clock clock;
    private final Duration sessionLifetime;

    public IdentityService(OutboxWriter outbox, Clock clock,
            @ConfigProperty(name = "guild.session.lifetime", defaultValue = "P30D") Duration sessionLifetime) {
        this.outbox = outbox;
        this.clock = clock;
        this.sessionLifetime = sessionLifetime;
    }

    /** Registers the Discord user once; a repeat returns the same user and publishes nothing. */
    @WithTransaction
    public Uni<Registration> register(String discordUserId) {
        return AppUser.findByDiscordId(discordUserId).chain(existing -> {
            if (existing != null) {
                return Uni.createFrom().item(new Registration(existing, false));
            }
            AppUser user = new AppUser();
            user.userId = UUID.randomUUID();
            user.discordUserId = discordUserId;
            user.registeredAt = clock.instant();
            return user.persist()
                    .chain(() -> outbox.publish(new UserRegistered(user.userId, discordUserId)))
                    .replaceWith(new Registration(user, true));
        });
    }

    @WithTransaction
    public Uni<NewSession> createSession(UUID userId) {
        return AppUser.<AppUser>findById(userId).chain(user -> {
            if (user == null) {
                return Uni.createFrom().failure(ProblemException.notFound("no user " + userId));
            }
            String token = SessionTokens.newToken();
            UserSession session = new UserSession();
            session.sessionId = UUID.randomUUID();
            session.userId = userId;
            session.tokenHash = SessionTokens.hash(token);
            session.createdAt = clock.instant();
            session.expiresAt = session.createdAt.plus(sessionLifetime);
            String reference = SessionTokens.reference(session.sessionId);
            return session.persist()
                    .chain(() -> outbox.publish(new UserSessionCreated(userId, reference)))
                    .invoke(() -> LOG.infof("user %s signed in, session %s", userId, reference))
                    .replaceWith(new NewSession(userId, token, session.expiresAt));
        });
    }
}
