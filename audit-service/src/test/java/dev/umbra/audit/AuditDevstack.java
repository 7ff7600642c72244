package dev.umbra.audit;

import dev.umbra.devstack.Devstack;
import dev.umbra.events.EventCatalog;
import dev.umbra.events.Topics;
import dev.umbra.testing.DevstackResource;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * devstack for audit-service, with the topic of every aggregate of the catalogue made before the service
 * subscribes, as in any running system. A topic that appears later rebalances the pattern consumer's
 * group (the audit log picks it up: {@code IngestIT} proves it once); tests that created the catalogue's
 * topics on demand would rebalance the group in whichever test first used a topic.
 */
public class AuditDevstack extends DevstackResource {

    @Override
    public Map<String, String> start() {
        Map<String, String> config = super.start();
        Properties admin = new Properties();
        admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, Devstack.shared().kafka().bootstrapServers());
        try (Admin kafka = Admin.create(admin)) {
            for (String aggregate : EventCatalog.entries().stream().map(EventCatalog.Entry::aggregateType).distinct().toList()) {
                try {
                    kafka.createTopics(java.util.List.of(new NewTopic(Topics.of(aggregate), 3, (short) 1))).all().get();
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new IllegalStateException("cannot create the topic of " + aggregate, e.getCause());
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return config;
    }
}
